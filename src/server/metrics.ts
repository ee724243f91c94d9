import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { AggregatorRegistry, Counter, Gauge, Registry } from "prom-client";
import { ruleLabel } from "../admission/rule-label.js";
import { type Warning, warningRule } from "../admission/warning.js";
import { limitConnections } from "./connection-limit.js";
import { defaultTimeouts } from "./https-server.js";
import { CounterSeries, PathHistogram } from "./path-series.js";

/**
 * The webhook's Prometheus metrics, named as controller-runtime names its webhook metrics so that
 * existing dashboards and alerts work unchanged. Labels stay bounded: `webhook` is one of the served
 * paths, `code` an HTTP status, `kind` a served kind, `cause` a StatusCause type or status reason and
 * `rule` a rule id the kind declares (or `none`); never a field path or anything else the request
 * chooses.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly latency = new PathHistogram(
    "controller_runtime_webhook_latency_seconds",
    "Histogram of the latency of processing admission requests",
    "webhook",
  );
  private readonly requests = new CounterSeries(
    "counter",
    "controller_runtime_webhook_requests_total",
    "Total number of admission requests by HTTP status code.",
    ["webhook", "code"],
  );
  private readonly inFlight = new CounterSeries(
    "gauge",
    "controller_runtime_webhook_requests_in_flight",
    "Current number of admission requests being served.",
    ["webhook"],
  );
  private readonly denials = new Counter({
    name: "module_admission_denials_total",
    help: "Admission requests denied, by kind, cause (StatusCause type, or status reason when the denial has no causes) and rule id (none: no declared rule).",
    labelNames: ["kind", "cause", "rule"],
    registers: [this.registry],
  });

  private readonly warnings = new Counter({
    name: "module_admission_warnings_total",
    help: "Admission requests answered with warnings, by kind and rule id (none: a warning without a declared rule id); each rule once per request.",
    labelNames: ["kind", "rule"],
    registers: [this.registry],
  });

  private readonly ratchetedUpdates = new Counter({
    name: "module_admission_ratcheted_total",
    help: "Updates admitted only because ratcheting spared errors the stored object already had (or housekeeping updates of invalid objects), by kind.",
    labelNames: ["kind"],
    registers: [this.registry],
  });

  private readonly certificateReloads = new Counter({
    name: "module_admission_certificate_reloads_total",
    help: "Serving certificates read from --cert-dir after start, by result: reloaded, or refused (empty, partial, key not matching, not valid now: the old one stays).",
    labelNames: ["result"],
    registers: [this.registry],
  });

  constructor() {
    for (const metric of [this.latency, this.requests, this.inFlight]) {
      // The registry reads name, help, type, aggregator and get(), which these have as its own metrics do.
      this.registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
    }
    registerProcessMetrics(this.registry);
  }

  /** Call when a webhook request arrives; the returned function records its end. */
  started(webhook: string): (code: number) => void {
    const inFlight = this.inFlight.cell(webhook);
    const started = process.hrtime.bigint();
    inFlight.value++;
    return (code) => {
      this.latency.observe(this.latency.cell(webhook), Number(process.hrtime.bigint() - started) / 1e9);
      inFlight.value--;
      this.requests.cell(webhook, String(code)).value++;
    };
  }

  /** One new serving certificate taken, or refused (the old one stays). */
  certificateReload(result: "reloaded" | "refused"): void {
    this.certificateReloads.labels(result).inc();
  }

  /** One update admitted only because of ratcheting: its object breaks today's rules. */
  ratcheted(kind: string): void {
    this.ratchetedUpdates.labels(kind).inc();
  }

  /** One denial: each distinct cause type and rule counts once. */
  denied(
    kind: string,
    causes: readonly { type: string; rule?: string }[],
    rules: readonly string[] = [],
  ): void {
    this.deniedAs(
      kind,
      causes.map((cause) => ({ type: cause.type, rule: ruleLabel(cause.rule, rules) })),
    );
  }

  /** One answer with warnings: each distinct rule counts once; a warning no rule gave is `none`. */
  warned(kind: string, warnings: readonly Warning[], rules: readonly string[] = []): void {
    this.warnedAs(
      kind,
      warnings.map((warning) => ruleLabel(warningRule(warning), rules)),
    );
  }

  /**
   * One judged review, as the thread that judged it reported it (`ReviewReport`: its labels already
   * bounded to the kind's declared rules).
   */
  reviewed(report: {
    kind: string;
    denied?: readonly { type: string; rule: string }[];
    warned?: readonly string[];
    ratcheted?: boolean;
  }): void {
    if (report.denied) this.deniedAs(report.kind, report.denied);
    if (report.warned) this.warnedAs(report.kind, report.warned);
    if (report.ratcheted) this.ratcheted(report.kind);
  }

  private deniedAs(kind: string, causes: readonly { type: string; rule: string }[]): void {
    const seen = new Set<string>();
    for (const { type, rule } of causes) {
      const key = `${type}\n${rule}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.denials.labels(kind, type, rule).inc();
    }
  }

  private warnedAs(kind: string, rules: readonly string[]): void {
    for (const rule of new Set(rules)) this.warnings.labels(kind, rule).inc();
  }
}

/**
 * The process's own metrics, under the names prom-client's defaults use, all read when scraped.
 * prom-client's `collectDefaultMetrics` also observes every garbage collection and samples the event
 * loop's delay every 10 ms, between scrapes: that cost about a tenth of a review's CPU at 1,500
 * reviews/s. The event loop's utilization since the last scrape says as much about saturation for
 * nothing between scrapes.
 */
type Aggregator = "sum" | "min" | "average";

function registerProcessMetrics(registry: Registry): void {
  // Summed across cluster workers (memory), but the start time is the earliest and utilization a mean.
  const gauge = (name: string, help: string, read: () => number, aggregator: Aggregator = "sum") =>
    new Gauge({
      name,
      help,
      aggregator,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  let cpuSecondsSeen = 0;
  new Counter({
    name: "process_cpu_seconds_total",
    help: "Total user and system CPU time spent in seconds.",
    registers: [registry],
    collect() {
      const { user, system } = process.cpuUsage();
      const seconds = (user + system) / 1e6;
      this.inc(Math.max(0, seconds - cpuSecondsSeen));
      cpuSecondsSeen = seconds;
    },
  });
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  gauge(
    "process_start_time_seconds",
    "Start time of the process since unix epoch in seconds.",
    () => startSeconds,
  );
  gauge("process_resident_memory_bytes", "Resident memory size in bytes.", () => process.memoryUsage.rss());
  gauge(
    "nodejs_heap_size_total_bytes",
    "Process heap size from Node.js in bytes.",
    () => process.memoryUsage().heapTotal,
  );
  gauge(
    "nodejs_heap_size_used_bytes",
    "Process heap size used from Node.js in bytes.",
    () => process.memoryUsage().heapUsed,
  );
  gauge(
    "nodejs_external_memory_bytes",
    "Node.js external memory size in bytes.",
    () => process.memoryUsage().external,
  );
  let utilizationSince = performance.eventLoopUtilization();
  gauge(
    "nodejs_eventloop_utilization",
    "Share of the time the event loop was busy since the last scrape (0 to 1).",
    () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, utilizationSince);
      utilizationSince = now;
      return since.utilization;
    },
  );
}

export interface MetricsServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** What /readyz says: ready or not, and why. */
export interface Readiness {
  ready: boolean;
  /** "ok", or why not ("shutting down", "not ready"). */
  text: string;
}

/** Connections the metrics listener keeps at most: scrapers and the kubelet's probes need a few. */
const metricsConnections = 64;

/**
 * GET /metrics in the Prometheus text format over plain HTTP, as controller-runtime's metrics endpoint,
 * and the health probes, /healthz and /readyz (`readiness`), on this listener of their own, as
 * controller-runtime's health probe address: a probe never waits behind review traffic, and its
 * connection always gets in (`limitConnections`). A request with a body is answered and its
 * connection closed, its body unread.
 */
export async function startMetricsServer(
  port: number,
  collect: () => Promise<{ contentType: string; body: string }>,
  host?: string,
  readiness: () => Readiness = () => ({ ready: true, text: "ok" }),
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = req.url?.split("?")[0];
    const withBody =
      req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
    if (withBody) res.setHeader("connection", "close");
    if (req.method !== "GET" || withBody) {
      res.writeHead(405, { "content-type": "text/plain" }).end("only GET is served here\n");
    } else if (path === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    } else if (path === "/readyz") {
      const { ready, text } = readiness();
      res.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(text);
    } else if (path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found; metrics are at /metrics\n");
    } else {
      collect().then(
        ({ contentType, body }) => res.writeHead(200, { "content-type": contentType }).end(body),
        (error) =>
          res.writeHead(500, { "content-type": "text/plain" }).end(`collecting metrics failed: ${error}\n`),
      );
    }
  });
  server.headersTimeout = defaultTimeouts.headersMs;
  server.requestTimeout = defaultTimeouts.requestMs;
  limitConnections(server, { max: metricsConnections, silentMs: defaultTimeouts.silentMs, secure: false });
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
