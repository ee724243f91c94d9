import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * The webhook's Prometheus metrics, named as controller-runtime names its webhook metrics so that
 * existing dashboards and alerts work unchanged. Labels stay bounded: `webhook` is one of the served
 * paths, `code` an HTTP status, `kind` a served kind and `cause` a StatusCause type or status reason;
 * never a field path or anything else the request chooses.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly latency = new Histogram({
    name: "controller_runtime_webhook_latency_seconds",
    help: "Histogram of the latency of processing admission requests",
    labelNames: ["webhook"],
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: "controller_runtime_webhook_requests_total",
    help: "Total number of admission requests by HTTP status code.",
    labelNames: ["webhook", "code"],
    registers: [this.registry],
  });
  private readonly inFlight = new Gauge({
    name: "controller_runtime_webhook_requests_in_flight",
    help: "Current number of admission requests being served.",
    labelNames: ["webhook"],
    registers: [this.registry],
  });
  private readonly denials = new Counter({
    name: "module_admission_denials_total",
    help: "Admission requests denied, by kind and by cause (StatusCause type, or status reason when the denial has no causes).",
    labelNames: ["kind", "cause"],
    registers: [this.registry],
  });

  private readonly ratchetedUpdates = new Counter({
    name: "module_admission_ratcheted_total",
    help: "Updates admitted only because ratcheting spared errors the stored object already had (or housekeeping updates of invalid objects), by kind.",
    labelNames: ["kind"],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Each path's labelled series, looked up once: prom-client hashes the label values on every
   * `labels()` call, three times per request before.
   */
  private readonly byPath = new Map<string, PathSeries>();

  /** Call when a webhook request arrives; the returned function records its end. */
  started(webhook: string): (code: number) => void {
    let series = this.byPath.get(webhook);
    if (!series) {
      series = {
        latency: this.latency.labels(webhook),
        inFlight: this.inFlight.labels(webhook),
        requests: new Map(),
      };
      this.byPath.set(webhook, series);
    }
    const { latency, inFlight, requests } = series;
    const started = process.hrtime.bigint();
    inFlight.inc();
    return (code) => {
      latency.observe(Number(process.hrtime.bigint() - started) / 1e9);
      inFlight.dec();
      let counter = requests.get(code);
      if (!counter) {
        counter = this.requests.labels(webhook, String(code));
        requests.set(code, counter);
      }
      counter.inc();
    };
  }

  /** One update admitted only because of ratcheting: its object breaks today's rules. */
  ratcheted(kind: string): void {
    this.ratchetedUpdates.labels(kind).inc();
  }

  /** One denial: each distinct cause type counts once. */
  denied(kind: string, causes: readonly string[]): void {
    for (const cause of new Set(causes)) this.denials.labels(kind, cause).inc();
  }
}

/** The series of one webhook path (served paths only: the map is bounded by the routes). */
interface PathSeries {
  latency: { observe(seconds: number): void };
  inFlight: { inc(): void; dec(): void };
  /** By HTTP status code: a handful (200, 400, 405, 413, 500). */
  requests: Map<number, { inc(): void }>;
}

export interface MetricsServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** GET /metrics in the Prometheus text format over plain HTTP, as controller-runtime's metrics endpoint. */
export async function startMetricsServer(
  port: number,
  collect: () => Promise<{ contentType: string; body: string }>,
  host?: string,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found; metrics are at /metrics\n");
      return;
    }
    collect().then(
      ({ contentType, body }) => res.writeHead(200, { "content-type": contentType }).end(body),
      (error) =>
        res.writeHead(500, { "content-type": "text/plain" }).end(`collecting metrics failed: ${error}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The collector for one process's own registry. */
export function registryCollector(registry: Registry) {
  return async () => ({ contentType: registry.contentType, body: await registry.metrics() });
}

/** In a cluster worker: the primary's AggregatorRegistry collects this registry over IPC. */
export function reportToClusterPrimary(metrics: WebhookMetrics): void {
  AggregatorRegistry.setRegistries([metrics.registry]);
  // prom-client installs the worker's answer to the primary's requests when an AggregatorRegistry is
  // constructed, in the primary and in workers alike.
  new AggregatorRegistry();
}
