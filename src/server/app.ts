import type { IncomingMessage, ServerResponse } from "node:http";
import { vouchForDepth } from "../admission/depth.js";
import { causeType } from "../admission/field-errors.js";
import {
  admissionResponse,
  judgeMutation,
  judgeValidation,
  objectName,
  type ReviewVerdict,
  shownVerdict,
} from "../admission/handler.js";
import { limits } from "../admission/limits.js";
import { type ResourceKind, webhooksOf } from "../admission/resource-kind.js";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  encodeReview,
  parseAdmissionReview,
} from "../admission/review.js";
import type { RuleActions } from "../admission/rule-actions.js";
import type { Logger } from "./log.js";
import type { WebhookMetrics } from "./metrics.js";
import { readBody } from "./read-body.js";

export interface AppOptions {
  kinds: ResourceKind[];
  log: Logger;
  /** Readiness beyond the server's own (e.g. caches synced); /readyz fails while it returns false. */
  isReady?: () => boolean;
  /** True once shutdown has begun: /readyz fails and every response closes its connection. */
  isDraining?: () => boolean;
  metrics?: WebhookMetrics;
  /** `--rule-action`: rules whose errors warn or are off instead of denying. */
  ruleActions?: RuleActions;
  /** Which reviews get a log line (default: denied). */
  logReviews?: ReviewLogging;
}

/**
 * Which reviews are logged: those that denied (serve's default, as Gatekeeper logs denials: the API
 * server's audit log already records every admitted request, and a line per review cost more CPU than
 * a review's rules), all of them, or none.
 */
export const reviewLoggings = ["denied", "all", "none"] as const;
export type ReviewLogging = (typeof reviewLoggings)[number];

type Review = (kind: ResourceKind, request: AdmissionRequest) => ReviewVerdict | Promise<ReviewVerdict>;

interface Route {
  kind: ResourceKind;
  review: Review;
}

/** The rule ids a kind's warnings may carry: its warning-only rules and its rules set to warn. */
function declaredRules(kind: ResourceKind): readonly string[] {
  return [...(kind.rules ?? []), ...(kind.warningRules ?? [])];
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The HTTP face of the webhook: for each kind, its validate and mutate paths, plus health probes. All
 * knowledge of a kind's fields lives in the kind's own Validator and Defaulter. Plain node:http rather
 * than a framework: the webhook sits in the path of every write, and this is its hot path.
 */
export function createApp(options: AppOptions): RequestListener {
  const routes = new Map<string, Route>();
  const validateOptions = {
    ruleActions: options.ruleActions,
    onRatcheted: (kind: ResourceKind) => options.metrics?.ratcheted(kind.kind),
  };
  // Warnings are counted as the rules gave them, by rule id (their text carries none).
  const validateWithOptions: Review = async (kind, request) => {
    const verdict = await judgeValidation(kind, request, validateOptions);
    if (verdict.warnings.length > 0)
      options.metrics?.warned(kind.kind, verdict.warnings, declaredRules(kind));
    return verdict;
  };
  for (const kind of options.kinds) {
    for (const { verb, path } of webhooksOf(kind)) {
      routes.set(path, { kind, review: verb === "mutate" ? judgeMutation : validateWithOptions });
    }
  }
  return (req, res) => {
    const draining = options.isDraining?.() ?? false;
    // The API server appends ?timeout=10s to webhook URLs.
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    const route = routes.get(path);
    if (route) {
      if (req.method !== "POST") {
        req.resume();
        sendJson(res, options, 405, { error: `${req.method} is not allowed; admission reviews are POSTed` });
        return;
      }
      const finished = options.metrics?.started(path);
      serveReview(req, res, path, route, options).then(
        (code) => finished?.(code),
        (error) => {
          options.log({ level: "error", msg: "request failed", path, error: String(error?.stack ?? error) });
          if (!res.headersSent) sendJson(res, options, 500, { error: "internal error" });
          finished?.(500);
        },
      );
      return;
    }
    req.resume();
    if (req.method === "GET" && path === "/healthz") {
      sendText(res, options, 200, "ok");
    } else if (req.method === "GET" && path === "/readyz") {
      const ready = !draining && (options.isReady?.() ?? true);
      sendText(res, options, ready ? 200 : 503, ready ? "ok" : draining ? "shutting down" : "not ready");
    } else {
      sendJson(res, options, 404, { error: `no webhook at ${JSON.stringify(path)}` });
    }
  };
}

/**
 * The answer to `Expect: 100-continue`: a body declared over `limit` gets 413 at once, and the client
 * never sends it; any other request is told to continue and served.
 */
export function continueWithin(app: RequestListener, limit: number): RequestListener {
  return (req, res) => {
    if (Number(req.headers["content-length"] ?? 0) > limit) {
      const text = JSON.stringify({ error: `request body exceeds ${limit} bytes` });
      res.writeHead(413, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
        connection: "close",
      });
      res.end(text);
      return;
    }
    res.writeContinue();
    app(req, res);
  };
}

/** One AdmissionReview, from body to answer; resolves to the HTTP status sent. */
async function serveReview(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  route: Route,
  options: AppOptions,
): Promise<number> {
  const started = process.hrtime.bigint();
  const contentType = req.headers["content-type"] ?? "";
  if (!isJson(contentType)) {
    req.resume();
    return sendJson(res, options, 400, {
      error: `Content-Type must be application/json, got ${JSON.stringify(contentType)}`,
    });
  }
  const body = await readBody(req, limits.bodyBytes);
  if ("tooLarge" in body) {
    refuseUnread(req, res);
    return sendJson(res, options, 413, { error: `request body exceeds ${limits.bodyBytes} bytes (7 MiB)` });
  }
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(body.text);
  } catch (error) {
    return sendJson(res, options, 400, {
      error: `request body is not valid JSON: ${(error as Error).message}`,
    });
  }
  const parsed = parseAdmissionReview(parsedBody);
  if ("problem" in parsed)
    return sendJson(res, options, 400, { error: `not an AdmissionReview: ${parsed.problem}` });
  const { request } = parsed;
  vouchForDepth(body.text, request.object, request.oldObject);
  const reviewed = await reviewSafely(route, request, options);
  const { text, response } = encodeReview(reviewed.response);
  if (!response.allowed)
    options.metrics?.denied(route.kind.kind, denialCauses(response, reviewed.verdict), route.kind.rules);
  sendEncoded(res, options, 200, text);
  const logging = options.logReviews ?? "denied";
  if (logging === "none" || (logging === "denied" && response.allowed)) return 200;
  options.log({
    msg: "admission review",
    path,
    uid: request.uid,
    kind: request.kind.kind,
    object: `${request.namespace ?? ""}/${objectName(request)}`,
    operation: request.operation,
    dryRun: request.dryRun === true,
    allowed: response.allowed,
    patched: response.patch !== undefined,
    durationMs: Number(process.hrtime.bigint() - started) / 1e6,
  });
  return 200;
}

/**
 * A bug must not turn into a bare 500 (the API server would report a transport error, and with
 * failurePolicy Ignore admit the object unchecked): answer the review, deny, and keep serving.
 */
async function reviewSafely(
  route: Route,
  request: AdmissionRequest,
  options: AppOptions,
): Promise<{ response: AdmissionResponse; verdict?: ReviewVerdict }> {
  try {
    const verdict = await route.review(route.kind, request);
    return { response: admissionResponse(route.kind, request, verdict), verdict };
  } catch (error) {
    options.log({
      level: "error",
      msg: "review failed",
      uid: request.uid,
      error: String((error as Error)?.stack ?? error),
    });
    const response: AdmissionResponse = {
      uid: request.uid,
      allowed: false,
      status: {
        code: 500,
        reason: "InternalError",
        message: `internal error while reviewing: ${String(error).slice(0, 200)}`,
      },
    };
    return { response };
  }
}

/** A denial's causes by type and rule, as the verdict gave them (the 422 the verdict was answered with). */
function denialCauses(
  response: AdmissionResponse,
  verdict?: ReviewVerdict,
): { type: string; rule?: string }[] {
  if (verdict && response.status?.code === 422) {
    const { errors, more } = shownVerdict(verdict);
    const causes = errors.map((error) => ({ type: causeType(error), rule: error.rule }));
    return more > 0 ? [...causes, { type: "FieldValueTooMany" }] : causes;
  }
  return [{ type: response.status?.reason ?? "Unknown" }];
}

/**
 * For an answer sent while the client may still be sending a body we will not read: the connection
 * closes after the answer. The socket is destroyed shortly after the answer is out rather than at
 * once, so that the client reads the answer before the reset its unread data causes (as Go's server
 * waits before closing).
 */
function refuseUnread(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("connection", "close");
  res.once("finish", () => setTimeout(() => req.socket.destroy(), unreadCloseDelayMs).unref());
}

const unreadCloseDelayMs = 500;

/** `application/json`, any case, with or without parameters such as charset. */
function isJson(contentType: string): boolean {
  return contentType.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

/**
 * Checked when the answer is written, not when the request came: a request in flight when shutdown
 * begins must close its connection too. Tells the API server, which reuses idle connections, to open
 * its next one elsewhere.
 */
function closeIfDraining(res: ServerResponse, options: AppOptions): void {
  if (options.isDraining?.()) res.setHeader("connection", "close");
}

function sendJson(res: ServerResponse, options: AppOptions, status: number, body: unknown): number {
  return sendEncoded(res, options, status, JSON.stringify(body));
}

function sendEncoded(res: ServerResponse, options: AppOptions, status: number, text: string): number {
  closeIfDraining(res, options);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
  return status;
}

function sendText(res: ServerResponse, options: AppOptions, status: number, text: string): void {
  closeIfDraining(res, options);
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
