import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reviewer, ReviewReport } from "../admission/review-protocol.js";
import { limits } from "../base/limits.js";
import type { Logger } from "../base/log.js";
import type { MemoryBudget } from "./memory-budget.js";
import type { Readiness, WebhookMetrics } from "./metrics.js";
import { bodyPieces, readBody } from "./read-body.js";

export interface AppOptions {
  /** Where reviews are judged: the webhook paths, and bytes in, bytes out. */
  reviewer: Reviewer;
  log: Logger;
  /** Readiness beyond the server's own (e.g. caches synced); /readyz fails while it returns false. */
  isReady?: () => boolean;
  /** True once shutdown has begun: /readyz fails and every response closes its connection. */
  isDraining?: () => boolean;
  metrics?: WebhookMetrics;
  /** Which reviews get a log line (default: denied). */
  logReviews?: ReviewLogging;
  /** What request bodies may hold together; a review whose body does not fit is answered 429. */
  budget?: MemoryBudget;
}

/**
 * Which reviews are logged: those that denied (serve's default, as Gatekeeper logs denials: the API
 * server's audit log already records every admitted request, and a line per review cost more CPU than
 * a review's rules), all of them, or none.
 */
export const reviewLoggings = ["denied", "all", "none"] as const;
export type ReviewLogging = (typeof reviewLoggings)[number];

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The HTTP face of the webhook: the reviewer's paths, plus health probes. It knows no kind and parses
 * no review: a review's body goes to the reviewer as bytes (in `serve`, to a worker thread), and its
 * answer comes back as JSON text, written with the response head in one write. Plain node:http
 * rather than a framework: the webhook sits in the path of every write, and this is its hot path.
 */
export function createApp(options: AppOptions): RequestListener {
  const { reviewer } = options;
  const readiness = readinessOf(options);
  return (req, res) => {
    // The API server appends ?timeout=10s to webhook URLs.
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    if (reviewer.paths.has(path)) {
      if (req.method !== "POST") {
        answerUnread(req, res, options, 405, {
          error: `${req.method} is not allowed; admission reviews are POSTed`,
        });
        return;
      }
      const finished = options.metrics?.started(path);
      serveReview(req, res, path, options).then(
        (code) => finished?.(code),
        (error) => {
          options.log({ level: "error", msg: "request failed", path, error: String(error?.stack ?? error) });
          if (!res.headersSent) sendJson(res, options, 500, { error: "internal error" });
          finished?.(500);
        },
      );
      return;
    }
    if (hasBody(req)) {
      answerUnread(req, res, options, 404, { error: `no webhook at ${JSON.stringify(path)}` });
    } else if (req.method === "GET" && path === "/healthz") {
      sendText(res, options, 200, "ok");
    } else if (req.method === "GET" && path === "/readyz") {
      const { ready, text } = readiness();
      sendText(res, options, ready ? 200 : 503, text);
    } else {
      sendJson(res, options, 404, { error: `no webhook at ${JSON.stringify(path)}` });
    }
  };
}

/** What /readyz says, on this listener and the metrics one: not while draining, nor before the workers and caches are. */
export function readinessOf(
  options: Pick<AppOptions, "reviewer" | "isReady" | "isDraining">,
): () => Readiness {
  return () => {
    if (options.isDraining?.()) return { ready: false, text: "shutting down" };
    const ready = options.reviewer.isReady() && (options.isReady?.() ?? true);
    return { ready, text: ready ? "ok" : "not ready" };
  };
}

/**
 * The answer to `Expect: 100-continue`: a body declared over `limit` gets 413 at once, and the client
 * never sends it; any other request is told to continue and served.
 */
export function continueWithin(app: RequestListener, limit: number): RequestListener {
  return (req, res) => {
    if (Number(req.headers["content-length"] ?? 0) > limit) {
      refuseUnread(req, res, `request body exceeds ${limit} bytes`);
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
  options: AppOptions,
): Promise<number> {
  const started = process.hrtime.bigint();
  const contentType = req.headers["content-type"] ?? "";
  if (!isJson(contentType)) {
    return answerUnread(req, res, options, 400, {
      error: `Content-Type must be application/json, got ${JSON.stringify(contentType)}`,
    });
  }
  // The body's bytes count against the budget until its answer is sent.
  const share = options.budget?.share();
  try {
    const body = await readBody(req, limits.bodyBytes, share);
    if ("tooLarge" in body)
      return refuseUnread(req, res, `request body exceeds ${limits.bodyBytes} bytes (7 MiB)`);
    if ("tooFragmented" in body)
      return closeUnread(req, res, 413, {
        error: `request body arrives in more than ${bodyPieces.free} pieces and one per ${bodyPieces.bytesEach} bytes (chunks or TLS records); send it with Content-Length or in larger chunks`,
      });
    if ("overBudget" in body) return closeUnread(req, res, 429, { error: options.budget?.refusal() });
    // A review whose client is gone by the time a worker is free (the API server gave up) is not judged.
    const answer = await options.reviewer.review(path, body.bytes, () => res.destroyed);
    sendEncoded(res, options, answer.status, answer.body);
    if (answer.report) reported(answer.report, path, started, options);
    return answer.status;
  } finally {
    share?.release();
  }
}

/** A judged review's metrics and log line. */
function reported(report: ReviewReport, path: string, started: bigint, options: AppOptions): void {
  options.metrics?.reviewed(report);
  const logging = options.logReviews ?? "denied";
  if (logging === "none" || (logging === "denied" && report.allowed)) return;
  options.log({
    msg: "admission review",
    path,
    ...report.log,
    allowed: report.allowed,
    durationMs: Number(process.hrtime.bigint() - started) / 1e6,
  });
}

/**
 * 413 for a body that will not be read, with a lingering close (Apache's, and why Go's server half-closes
 * and waits): the answer is written whole and the connection half-closed, then what the client still
 * sends is read and dropped, up to `linger.bytes` or for `linger.ms`, before the socket is destroyed.
 * Destroying a socket with the client's data unread resets the connection, and the reset can discard
 * the answer before the client has read it: a client that went on sending after `Content-Length:
 * 1000000000000000` got a reset, never the 413.
 */
function refuseUnread(req: IncomingMessage, res: ServerResponse, message: string): number {
  return closeUnread(req, res, 413, { error: message });
}

/**
 * An answer to a request whose body is never read (a method or path that takes none, a body that is
 * no JSON): with a body, answered at once and the connection closed (a lingering close), so that no
 * byte of it is read beyond the linger's bound, whatever its Content-Length; without one, as usual.
 */
function answerUnread(
  req: IncomingMessage,
  res: ServerResponse,
  options: AppOptions,
  status: number,
  body: unknown,
): number {
  if (hasBody(req)) return closeUnread(req, res, status, body);
  return sendJson(res, options, status, body);
}

/** Whether a request says it has a body (Content-Length over 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function closeUnread(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): number {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    connection: "close",
  });
  // Written, not ended: Node destroys the socket of a `Connection: close` answer once it is out.
  res.write(text);
  const { socket } = req;
  socket.end();
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, linger.ms).unref();
  socket.once("close", () => clearTimeout(timer));
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > linger.bytes) cut();
  });
  req.resume();
  return status;
}

/** How much of a refused body is read and dropped after the 413, at most. */
export const linger = { bytes: 4 * 1024 * 1024, ms: 2_000 };

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
