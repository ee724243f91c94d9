import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import type { Logger } from "../base/log.js";
import { type MetricsServer, startMetricsServer } from "./metrics.js";

export interface PrimaryOptions {
  workers: number;
  /** Where the summed metrics listen; undefined: off. */
  metrics?: { host?: string; port: number };
  /** How long workers get to shut down after SIGTERM before they are killed. */
  graceMs: number;
  log: Logger;
}

/**
 * The primary of `serve --workers N`: forks N workers that share the HTTPS port (node:cluster), serves
 * their summed metrics, replaces a worker that dies, and on SIGTERM passes the signal on and waits for
 * every worker to drain and exit. A worker that dies before it ever listened is not replaced: that is
 * a configuration error, not a crash, and a restart loop would hide it.
 */
export async function runPrimary(options: PrimaryOptions): Promise<void> {
  const aggregator = new AggregatorRegistry();
  let stopping = false;
  let listening = 0;
  // The probes on the metrics listener: ready while every worker listens (each answers its own
  // /readyz on the HTTPS port too) and none is stopping.
  const readiness = () =>
    stopping
      ? { ready: false, text: "shutting down" }
      : listening >= options.workers
        ? { ready: true, text: "ok" }
        : { ready: false, text: "not ready" };
  const metricsServer = options.metrics
    ? await startMetricsServer(
        options.metrics.port,
        async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() }),
        options.metrics.host,
        readiness,
      )
    : undefined;
  if (metricsServer) {
    options.log({
      msg: `metrics on http://localhost:${metricsServer.port}/metrics`,
      metricsPort: metricsServer.port,
    });
  }
  const listened = new WeakSet<Worker>();
  cluster.on("listening", (worker) => {
    listened.add(worker);
    listening++;
  });
  cluster.on("exit", (worker, code, signal) => {
    if (listened.has(worker)) listening--;
    if (stopping) return;
    if (!listened.has(worker)) {
      options.log({ level: "error", msg: "a worker exited before serving; stopping", code, signal });
      void stopWorkers(metricsServer, options).then(() => process.exit(1));
      stopping = true;
      return;
    }
    options.log({ level: "error", msg: "a worker died; starting another", code, signal });
    cluster.fork();
  });
  for (let i = 0; i < options.workers; i++) cluster.fork();
  const terminate = () => {
    if (stopping) return;
    stopping = true;
    void stopWorkers(metricsServer, options).then((clean) => process.exit(clean ? 0 : 1));
  };
  process.once("SIGTERM", terminate);
  process.once("SIGINT", terminate);
}

/** SIGTERM to every worker, then wait for them all to exit (killing stragglers after the grace period). */
async function stopWorkers(
  metricsServer: MetricsServer | undefined,
  options: PrimaryOptions,
): Promise<boolean> {
  const workers = Object.values(cluster.workers ?? {}).filter(
    (worker): worker is Worker => worker !== undefined,
  );
  const exits = workers.map(
    (worker) =>
      new Promise<boolean>((resolve) => {
        if (worker.isDead()) return resolve(worker.process.exitCode === 0);
        worker.once("exit", (code) => resolve(code === 0));
        worker.process.kill("SIGTERM");
      }),
  );
  const killer = setTimeout(() => {
    for (const worker of workers) if (!worker.isDead()) worker.process.kill("SIGKILL");
  }, options.graceMs + 1_000);
  const clean = (await Promise.all(exits)).every(Boolean);
  clearTimeout(killer);
  await metricsServer?.close();
  options.log({ msg: "all workers stopped", clean });
  return clean;
}
