import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Reviewer } from "../admission/review-protocol.js";
import { limits } from "../base/limits.js";
import type { Logger } from "../base/log.js";
import { continueWithin, createApp, type ReviewLogging, readinessOf } from "./app.js";
import { watchCertificates } from "./certificate-reloader.js";
import { readServingCertificate } from "./certificates.js";
import { limitConnections } from "./connection-limit.js";
import type { MemoryBudget } from "./memory-budget.js";
import type { Readiness, WebhookMetrics } from "./metrics.js";
import { tlsPolicy } from "./tls-policy.js";

/**
 * How long a connection may idle, and how long a request may take to arrive:
 * - keep-alive 90 s, controller-runtime's IdleTimeout: the API server reuses idle connections;
 * - headers 10 s and the whole request 30 s: the API server writes a review at once and gives up on a
 *   webhook after its timeoutSeconds (10 s by default, at most 30 s), so a request still arriving after
 *   that is one no API server is waiting for: a slow client holding a connection (Node's default lets
 *   it trickle for 300 s);
 * - silent 3 s: a connection that has not finished its TLS handshake within it, or has sent no byte of
 *   a request within it after the handshake, is closed: the API server sends its review at once, and
 *   such connections held the connection slots new ones needed.
 */
export const defaultTimeouts = { keepAliveMs: 90_000, headersMs: 10_000, requestMs: 30_000, silentMs: 3_000 };

export interface ServeOptions {
  port: number;
  host?: string;
  certDir: string;
  /** Where reviews are judged (`ReviewPool` in `serve`); closed with the server. */
  reviewer: Reviewer;
  log: Logger;
  isReady?: () => boolean;
  metrics?: WebhookMetrics;
  logReviews?: ReviewLogging;
  /** After SIGTERM: how long to keep answering (with `Connection: close`) before refusing new connections. */
  drainMs?: number;
  /** After SIGTERM: how long until connections still open are cut and shutdown completes. */
  graceMs?: number;
  timeouts?: Partial<typeof defaultTimeouts>;
  /** Open connections at most (`limits.connections`). */
  maxConnections?: number;
  /** What request bodies may hold together (`serve --memory-budget`); unbounded when absent. */
  budget?: MemoryBudget;
}

export interface RunningServer {
  server: Server;
  port: number;
  /** What /readyz says (the metrics listener answers it too). */
  readiness(): Readiness;
  /** Stops at once, cutting open connections (tests, errors). */
  close(): Promise<void>;
  /**
   * Stops as a terminating pod should: unready and `Connection: close` for the drain period, so the API
   * server moves to other replicas while endpoints catch up; then no new connections, idle ones closed,
   * in-flight requests finished; connections still open when the grace period ends are cut.
   * Resolves true when everything finished within the grace period. `drainEnds`, when given, ends the
   * drain instead of the drain period: an event of the caller's (a test's load has seen readiness
   * withdrawn), so what is checked does not hang on how fast a loaded machine runs a timer's race.
   */
  shutdown(drainEnds?: Promise<unknown>): Promise<boolean>;
}

/**
 * The webhook over HTTPS/1.1 with TLS 1.2 or newer. HTTP/2 is not offered: the API server speaks
 * HTTP/1.1 to webhooks, and HTTP/2 brought the Rapid Reset CVEs. The certificate is reloaded when the
 * files in certDir change.
 */
export async function startHttpsServer(options: ServeOptions): Promise<RunningServer> {
  let draining = false;
  const appOptions = {
    reviewer: options.reviewer,
    log: options.log,
    isReady: options.isReady,
    isDraining: () => draining,
    metrics: options.metrics,
    logReviews: options.logReviews,
    budget: options.budget,
  };
  const app = createApp(appOptions);
  const timeouts = { ...defaultTimeouts, ...options.timeouts };
  const server = createServer(
    {
      ...readServingCertificate(options.certDir),
      ...tlsPolicy,
      ALPNProtocols: ["http/1.1"],
      // How often the header and request timeouts are checked (Node's default, 30 s, would let a slow
      // request live a whole extra interval).
      connectionsCheckingInterval: 1_000,
      handshakeTimeout: timeouts.silentMs,
    },
    app,
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  limitConnections(server, {
    max: options.maxConnections ?? limits.connections,
    silentMs: timeouts.silentMs,
    secure: true,
  });
  server.on("checkContinue", continueWithin(app, limits.bodyBytes));
  const reloader = watchCertificates(
    options.certDir,
    (pair) => server.setSecureContext({ ...pair, ...tlsPolicy }),
    options.log,
    {
      onReloaded: () => options.metrics?.certificateReload("reloaded"),
      onRefused: () => options.metrics?.certificateReload("refused"),
    },
  );
  server.on("close", () => reloader.stop());
  const closeReviewer = () => options.reviewer.close();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const closed = new Promise<void>((resolve) => server.once("close", resolve));
  let shuttingDown: Promise<boolean> | undefined;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    readiness: readinessOf(appOptions),
    close: async () => {
      draining = true;
      server.close();
      server.closeAllConnections();
      await closed;
      await closeReviewer();
    },
    shutdown: (drainEnds) => {
      shuttingDown ??= shutdown(server, closed, options, drainEnds, () => {
        draining = true;
      }).then(async (clean) => {
        await closeReviewer();
        return clean;
      });
      return shuttingDown;
    },
  };
}

async function shutdown(
  server: Server,
  closed: Promise<void>,
  options: ServeOptions,
  drainEnds: Promise<unknown> | undefined,
  startDraining: () => void,
): Promise<boolean> {
  const drainMs = options.drainMs ?? 15_000;
  const graceMs = Math.max(options.graceMs ?? 25_000, drainMs);
  const deadline = Date.now() + graceMs;
  startDraining();
  options.log({ msg: "shutting down: unready, closing connections after each response", drainMs, graceMs });
  // Listening on until readiness is withdrawn and the endpoints have caught up: closing the listener
  // resets the connections still waiting in its backlog, and the API server retries none of them.
  await (drainEnds ?? sleep(drainMs));
  // close() stops accepting and closes idle connections; busy ones close after their response.
  server.close();
  let graceTimer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<boolean>((resolve) => {
    graceTimer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  const finished = await Promise.race([closed.then(() => true), graceOver]);
  clearTimeout(graceTimer);
  if (!finished) {
    options.log({ level: "error", msg: "grace period over: cutting the connections still open" });
    server.closeAllConnections();
    await closed;
  }
  options.log({ msg: "shut down", clean: finished });
  return finished;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
