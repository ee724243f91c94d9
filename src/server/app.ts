import express, { type NextFunction, type Request, type Response } from "express";
import { mutate, validate } from "../admission/handler.js";
import { type ResourceKind, webhookPath } from "../admission/resource-kind.js";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  parseAdmissionReview,
  reviewResponse,
} from "../admission/review.js";
import type { Logger } from "./log.js";

/** The API server sends at most 3 MiB objects; allow for the old object and the envelope. */
const maxBodyBytes = "7mb";

export interface AppOptions {
  kinds: ResourceKind[];
  log: Logger;
  isReady?: () => boolean;
}

type Review = (
  kind: ResourceKind,
  request: AdmissionRequest,
) => AdmissionResponse | Promise<AdmissionResponse>;

/**
 * The HTTP face of the webhook: for each kind, its validate and mutate paths, plus health probes. All
 * knowledge of a kind's fields lives in the kind's own Validator and Defaulter.
 */
export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.get("/healthz", (_req, res) => {
    res.type("text/plain").send("ok");
  });
  app.get("/readyz", (_req, res) => {
    const ready = options.isReady?.() ?? true;
    res
      .status(ready ? 200 : 503)
      .type("text/plain")
      .send(ready ? "ok" : "not ready");
  });
  const json = express.json({ limit: maxBodyBytes, type: () => true, strict: false });
  for (const kind of options.kinds) {
    app.post(webhookPath(kind, "validate"), requireJson, json, reviewRoute(kind, validate, options.log));
    app.post(webhookPath(kind, "mutate"), requireJson, json, reviewRoute(kind, mutate, options.log));
  }
  app.use(errorHandler);
  return app;
}

function requireJson(req: Request, res: Response, next: NextFunction): void {
  if (req.is("application/json")) {
    next();
    return;
  }
  res.status(400).json({
    error: `Content-Type must be application/json, got ${JSON.stringify(req.get("content-type") ?? "")}`,
  });
}

function reviewRoute(kind: ResourceKind, review: Review, log: Logger) {
  return async (req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    const parsed = parseAdmissionReview(req.body);
    if ("problem" in parsed) {
      res.status(400).json({ error: `not an AdmissionReview: ${parsed.problem}` });
      return;
    }
    const { request } = parsed;
    let response: AdmissionResponse;
    try {
      response = await review(kind, request);
    } catch (error) {
      // A bug must not turn into a bare 500 (the API server would report a transport error): answer
      // the review, deny, and keep serving.
      log({
        level: "error",
        msg: "review failed",
        uid: request.uid,
        error: String((error as Error)?.stack ?? error),
      });
      response = {
        uid: request.uid,
        allowed: false,
        status: {
          code: 500,
          reason: "InternalError",
          message: `internal error while reviewing: ${String(error)}`,
        },
      };
    }
    res.json(reviewResponse(response));
    log({
      msg: "admission review",
      path: req.path,
      uid: request.uid,
      kind: request.kind.kind,
      object: `${request.namespace ?? ""}/${request.name ?? objectName(request.object)}`,
      operation: request.operation,
      dryRun: request.dryRun === true,
      allowed: response.allowed,
      patched: response.patch !== undefined,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
    });
  };
}

function objectName(object: unknown): string {
  const metadata = (object as { metadata?: { name?: unknown; generateName?: unknown } } | undefined)
    ?.metadata;
  return String(metadata?.name ?? metadata?.generateName ?? "");
}

function errorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const status = (error as { status?: number }).status ?? 500;
  const type = (error as { type?: string }).type;
  const message =
    type === "entity.too.large"
      ? `request body exceeds ${maxBodyBytes}`
      : type === "entity.parse.failed"
        ? "request body is not valid JSON"
        : "internal error";
  res.status(status).json({ error: message });
}
