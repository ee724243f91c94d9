import cluster from "node:cluster";
import type { Server } from "node:https";
import { Command } from "commander";
import { parseRuleActions, type RuleActions } from "../admission/rule-actions.js";
import { jsonLogger } from "../base/log.js";
import { type ReviewLogging, reviewLoggings } from "../server/app.js";
import { ensureCertDirLogged, serviceDnsNames } from "../server/certificates.js";
import { startHttpsServer } from "../server/https-server.js";
import { MemoryBudget } from "../server/memory-budget.js";
import {
  registryCollector,
  reportToClusterPrimary,
  startMetricsServer,
  WebhookMetrics,
} from "../server/metrics.js";
import { runPrimary } from "../server/node-cluster.js";
import { collect, type Outcome, optionValues, parseOptionValues, UsageError } from "./command.js";
import { playgroundDir, startPlaygroundServer } from "./playground-files.js";
import { prepareClusterFeatures } from "./serve-cluster.js";
import {
  defaultMemoryBudgetMb,
  defaultPool,
  type PoolSettings,
  semiSpaceFor,
  startReviewWorkers,
} from "./serve-reviews.js";

/** `serve`'s options: its help and its parsing both come from here. */
function serveOptions(): Command {
  return new Command("serve")
    .summary("serve the admission webhooks over HTTPS")
    .description("Serve the admission webhooks over HTTPS.")
    .option("--port <N>", "port to listen on", "8443")
    .option(
      "--cert-dir <DIR>",
      "tls.crt, tls.key (and ca.crt); generated when absent, reloaded when they change",
      "certs",
    )
    .option("--service <NAME>", "Service name for generated certificates", "module-admission")
    .option("--namespace <NS>", "Service namespace for generated certificates", "module-admission")
    .option("--metrics-port <N>", "Prometheus metrics over plain HTTP at /metrics", "8080")
    .option(
      "--metrics-bind-address <[HOST]:PORT|0>",
      "where metrics listen, as controller-runtime's flag (default :8080, every interface; 127.0.0.1:8080 keeps them in the pod); 0 turns them off",
    )
    .option(
      "--playground [[HOST]:PORT]",
      `also serve the playground page (dist/playground/, static) over plain HTTP on a port of its own, never the webhook's; alone: :${defaultPlaygroundPort}. Off by default`,
    )
    .option("--workers <N>", "processes sharing the port, to use N cores", "1")
    .option(
      "--review-workers <N>",
      "worker threads judging reviews in each process, off the event loop",
      String(defaultPool.size),
    )
    .option(
      "--worker-heap-mb <MiB>",
      "each review worker's heap: a review that needs more is denied (rule webhook.work-budget) and its worker replaced",
      String(defaultPool.heapMb),
    )
    .option(
      "--review-deadline-ms <MS>",
      "how long one review may take: one that takes longer is denied (rule webhook.work-budget) and its worker replaced",
      String(defaultPool.deadlineMs),
    )
    .option(
      "--memory-budget <MiB>",
      "what the review workers' heaps and the request bodies in flight may hold together; a review past it is answered 429 at once (the chart: resources.limits.memory less 128 MiB)",
      String(defaultMemoryBudgetMb),
    )
    .option(
      "--drain-seconds <S>",
      "after SIGTERM: answer with Connection: close, unready, for S seconds (SIGINT does not drain)",
      "15",
    )
    .option("--grace-seconds <S>", "after SIGTERM: exit at the latest, cutting what is left", "25")
    .option("--kubeconfig <FILE>", "cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)")
    .option(
      "--workspace-check <auto|off>",
      "deny Modules whose spec.workspace does not exist; auto: when there is cluster access",
      "auto",
    )
    .option(
      "--moduletemplate-check <auto|off>",
      "deny Kyma ModuleReleaseMetas whose channel versions have no ModuleTemplate <moduleName>-<version>; auto: when there is cluster access",
      "auto",
    )
    .option(
      "--self-signed-secret <NS/NAME>",
      "keep a self-signed CA and serving certificate in this kubernetes.io/tls Secret: issued when empty or expiring, written to --cert-dir, renewed",
    )
    .option(
      "--webhook-configuration <NAME>",
      "with --self-signed-secret: inject the CA into the caBundle of the Mutating- and ValidatingWebhookConfiguration of this name",
    )
    .option("--modules-dir <DIR>", "addon-operator modules: serve /validate-addon-operator-configmap")
    .option("--global-hooks-dir <DIR>", "addon-operator global hooks (openapi/ holds the global schema)")
    .option(
      "--addon-configmap <NS/NAME>",
      "the ConfigMap addon-operator reads",
      "addon-operator/addon-operator",
    )
    .option(
      "--rule-action <ID=deny|warn|off>",
      "a rule's errors deny (default), only warn, or are off; repeatable",
      collect,
    )
    .option(
      "--log-reviews <denied|all|none>",
      "a JSON line per review that denied, per review, or none",
      "denied",
    );
}

export function serveDefinition(outcome: Outcome): Command {
  return serveOptions().action(async (_options: unknown, command: Command) => {
    await serve(parsedFlags(optionValues(command)));
    outcome.status = 0;
  });
}

export interface ServeFlags {
  port: number;
  certDir: string;
  service: string;
  namespace: string;
  /** Where metrics listen; undefined: off. */
  metrics?: { host?: string; port: number };
  /** Where the playground page is served; undefined: off (the default). */
  playground?: { host?: string; port: number };
  workers: number;
  /** The review workers of each process. */
  pool: PoolSettings;
  /** `--memory-budget`, in MiB: each process's. */
  memoryBudgetMb: number;
  drainMs: number;
  graceMs: number;
  kubeconfig?: string;
  workspaceCheck: string;
  moduleTemplateCheck: string;
  selfSignedSecret?: string;
  webhookConfiguration?: string;
  modulesDir?: string;
  globalHooksDir?: string;
  addonConfigMap: string;
  ruleActions: RuleActions;
  logReviews: ReviewLogging;
}

export function parseServeFlags(args: string[]): ServeFlags {
  return parsedFlags(parseOptionValues(serveOptions(), args));
}

type Values = Record<string, string | boolean | string[] | undefined>;

function parsedFlags(values: Values): ServeFlags {
  const text = (flag: string) => values[flag] as string;
  const metrics = metricsAddress(values);
  return {
    port: number(values, "port", { integer: true, max: 65535 }),
    certDir: text("cert-dir"),
    service: text("service"),
    namespace: text("namespace"),
    metrics,
    ...playgroundAddress(values, metrics),
    workers: number(values, "workers", { integer: true, min: 1, max: 256 }),
    pool: {
      size: number(values, "review-workers", { integer: true, min: 1, max: 64 }),
      heapMb: number(values, "worker-heap-mb", { integer: true, min: 16, max: 16_384 }),
      deadlineMs: number(values, "review-deadline-ms", { integer: true, min: 10, max: 60_000 }),
    },
    memoryBudgetMb: number(values, "memory-budget", { integer: true, min: 64, max: 1_048_576 }),
    drainMs: number(values, "drain-seconds", {}) * 1000,
    graceMs: number(values, "grace-seconds", {}) * 1000,
    kubeconfig: values.kubeconfig as string | undefined,
    workspaceCheck: text("workspace-check"),
    moduleTemplateCheck: text("moduletemplate-check"),
    selfSignedSecret: values["self-signed-secret"] as string | undefined,
    webhookConfiguration: values["webhook-configuration"] as string | undefined,
    modulesDir: values["modules-dir"] as string | undefined,
    globalHooksDir: values["global-hooks-dir"] as string | undefined,
    addonConfigMap: text("addon-configmap"),
    ruleActions: parseRuleActions((values["rule-action"] as string[] | undefined) ?? []),
    logReviews: reviewLogging(values["log-reviews"]),
  };
}

function reviewLogging(text: string | boolean | string[] | undefined): ReviewLogging {
  const choice = reviewLoggings.find((option) => option === text);
  if (choice === undefined) {
    throw new Error(`--log-reviews: ${JSON.stringify(text)} is not one of ${reviewLoggings.join(", ")}`);
  }
  return choice;
}

/** `--metrics-bind-address` when given (`0`: off), else every interface on `--metrics-port`. */
function metricsAddress(
  values: Record<string, string | string[] | boolean | undefined>,
): ServeFlags["metrics"] {
  const port = number(values, "metrics-port", { integer: true, max: 65535 });
  const address = values["metrics-bind-address"];
  if (typeof address !== "string") return { port };
  if (address === "0") return undefined;
  const bound = hostAndPort(address);
  if (!bound) throw new Error(`--metrics-bind-address: ${JSON.stringify(address)} is not [HOST]:PORT or 0`);
  return bound;
}

/** The port `--playground` alone listens on: `module-admission playground`'s. */
const defaultPlaygroundPort = 8090;

/**
 * `--playground` (alone: every interface on 8090) or `--playground [HOST]:PORT`; off without it. Never
 * the webhook's port: the page is not review traffic, and a webhook port serving it would be reachable
 * from wherever the API server reaches the webhook.
 */
function playgroundAddress(
  values: Values,
  metrics: ServeFlags["metrics"],
): { playground?: ServeFlags["playground"] } {
  const given = values.playground;
  if (given === undefined || given === false) return {};
  const bound =
    given === true ? { port: defaultPlaygroundPort } : hostAndPort(String(given).replace(/^(\d+)$/, ":$1"));
  if (!bound) throw new UsageError(`--playground: ${JSON.stringify(given)} is not [HOST]:PORT (or a port)`);
  for (const [other, port] of [
    ["the webhook's (--port)", Number(values.port)],
    ["the metrics' (--metrics-port)", metrics?.port],
  ] as const)
    if (bound.port !== 0 && bound.port === port)
      throw new UsageError(`--playground: port ${bound.port} is ${other}: give it a port of its own`);
  return { playground: bound };
}

/** `[HOST]:PORT` as a listener's host (none: every interface) and port; undefined when it is not one. */
function hostAndPort(address: string): { host?: string; port: number } | undefined {
  const match = /^(.*):(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match || port > 65535) return undefined;
  // `[::1]:8080`: the brackets are the address's, not the host's.
  const host = (match[1] ?? "").replace(/^\[(.*)\]$/, "$1");
  return host === "" ? { port } : { host, port };
}

function number(
  values: Record<string, string | string[] | boolean | undefined>,
  flag: string,
  { integer = false, min = 0, max = Number.MAX_SAFE_INTEGER },
): number {
  const text = String(values[flag] ?? "");
  const value = Number(text);
  if (
    text.trim() === "" ||
    !Number.isFinite(value) ||
    (integer && !Number.isInteger(value)) ||
    value < min ||
    value > max
  ) {
    throw new Error(
      `--${flag}: ${JSON.stringify(text)} is not ${integer ? "an integer" : "a number"} from ${min} to ${max}`,
    );
  }
  return value;
}

export async function serve(flags: ServeFlags): Promise<void> {
  // In the primary only, before anything else starts: a page not built, or a port taken, stops serve
  // before it takes reviews.
  if (cluster.isPrimary && flags.playground) await listenOnPlayground(flags.playground);
  if (cluster.isPrimary && flags.workers > 1) {
    // Workers must share one certificate: generate it once here, before they start. (A selfSigned
    // Secret is shared by design; each worker reads it.)
    if (flags.selfSignedSecret === undefined) {
      await ensureCertDirLogged(flags.certDir, serviceDnsNames(flags.service, flags.namespace), jsonLogger);
    }
    // The primary listens on the metrics port only.
    const primary = () =>
      runPrimary({ workers: flags.workers, metrics: flags.metrics, graceMs: flags.graceMs, log: jsonLogger });
    await (flags.metrics ? listenOnMetrics(flags.metrics, primary) : primary());
    return;
  }
  await serveProcess(flags);
}

/** The webhook in this process (the only one, or one worker of several). */
async function serveProcess(flags: ServeFlags): Promise<void> {
  // Refused before anything starts: a budget the workers alone would fill.
  const semiSpaceMb = semiSpaceFor(flags.memoryBudgetMb, flags.pool);
  const clusterFeatures = await prepareClusterFeatures({
    kubeconfig: flags.kubeconfig,
    workspaceCheck: flags.workspaceCheck,
    moduleTemplateCheck: flags.moduleTemplateCheck,
    selfSignedSecret: flags.selfSignedSecret,
    webhookConfiguration: flags.webhookConfiguration,
    certDir: flags.certDir,
    dnsNames: serviceDnsNames(flags.service, flags.namespace),
    log: jsonLogger,
  });
  // The kinds are built and judged in the review workers only; one that cannot start (an unknown
  // --rule-action, a --modules-dir that is no directory) stops serve here, with its message.
  const reviewer = await startReviewWorkers({
    ruleActions: flags.ruleActions,
    addonOperator: {
      "modules-dir": flags.modulesDir,
      "global-hooks-dir": flags.globalHooksDir,
      "addon-configmap": flags.addonConfigMap,
    },
    lookups: clusterFeatures.lookups,
    pool: flags.pool,
    semiSpaceMb,
    log: jsonLogger,
  }).catch(async (error: unknown) => {
    await clusterFeatures.stop();
    throw error;
  });
  // Nothing is recorded when nothing serves it (--metrics-bind-address 0).
  const metrics = flags.metrics ? new WebhookMetrics() : undefined;
  if (metrics && cluster.isWorker) reportToClusterPrimary(metrics);
  const running = await listenOn(`--port ${flags.port}`, "--port", () =>
    startHttpsServer({
      port: flags.port,
      certDir: flags.certDir,
      reviewer,
      log: jsonLogger,
      isReady: clusterFeatures.isReady,
      metrics,
      logReviews: flags.logReviews,
      drainMs: flags.drainMs,
      graceMs: flags.graceMs,
      budget: new MemoryBudget(flags.memoryBudgetMb * 1024 * 1024, () => reviewer.workersMemory()),
    }),
  );
  clusterFeatures.attach(running.server);
  let metricsServer: { port: number; close(): Promise<void> } | undefined;
  if (cluster.isPrimary && flags.metrics && metrics) {
    const { host, port } = flags.metrics;
    metricsServer = await listenOnMetrics(flags.metrics, () =>
      startMetricsServer(port, registryCollector(metrics.registry), host, running.readiness),
    );
    jsonLogger({
      msg: `metrics on http://localhost:${metricsServer.port}/metrics`,
      metricsPort: metricsServer.port,
    });
  }
  const paths = [...reviewer.paths];
  jsonLogger({
    msg: `serving on https://localhost:${running.port}`,
    port: running.port,
    paths,
    // The semi-space says whether the budget had room for the large young generation (docs/operations.md).
    reviewWorkers: { ...flags.pool, semiSpaceMb },
  });
  const stopped = async (clean: boolean) => {
    await Promise.all([metricsServer?.close(), clusterFeatures.stop()]);
    process.exit(clean ? 0 : 1);
  };
  // SIGTERM is a pod's end: the drain keeps answering while the endpoints change (one log line says how long).
  process.once("SIGTERM", async () => stopped(await running.shutdown()));
  // SIGINT is a person at a terminal (Ctrl-C): no endpoints to wait for, so the reviews in flight are
  // finished and the process exits; a second Ctrl-C cuts them.
  process.once("SIGINT", async () => {
    process.once("SIGINT", () => process.exit(1));
    jsonLogger({
      msg: "interrupted: finishing the reviews in flight, then exiting (SIGTERM drains instead)",
    });
    stopped(await finishInFlight(running.server, flags.graceMs));
  });
}

/**
 * A listener started, or an error that names the flag that moves it: `listen EADDRINUSE :::8080`
 * alone does not say which of serve's two ports is taken, nor what to change.
 */
async function listenOn<T>(what: string, flag: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new Error(`${what} is already in use (listen EADDRINUSE): choose another with ${flag}`);
    if (code === "EACCES")
      throw new Error(
        `${what} may not be listened on by this user (listen EACCES): choose another with ${flag}`,
      );
    throw error;
  }
}

function listenOnMetrics<T>(metrics: { host?: string; port: number }, start: () => Promise<T>): Promise<T> {
  const where = `${metrics.host ? `${metrics.host}:` : ""}${metrics.port}`;
  return listenOn(`metrics port ${where}`, "--metrics-port (or --metrics-bind-address)", start);
}

/** The playground's own listener (plain HTTP, static files): open until the process exits. */
async function listenOnPlayground(where: { host?: string; port: number }): Promise<void> {
  const named = `${where.host ? `${where.host}:` : ""}${where.port}`;
  const started = await listenOn(`playground port ${named}`, "--playground [HOST]:PORT", () =>
    startPlaygroundServer(where.port, where.host),
  );
  if (!started)
    throw new UsageError(
      `--playground: the page is not built (no ${playgroundDir}index.html): run npm run build:playground`,
    );
  jsonLogger({ msg: `playground on http://localhost:${started.port}/`, playgroundPort: started.port });
}

/** Stops accepting, closes idle connections, and waits for busy ones up to `graceMs`: true when all ended. */
async function finishInFlight(server: Server, graceMs: number): Promise<boolean> {
  const closed = new Promise<boolean>((resolve) => server.close(() => resolve(true)));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const clean = await Promise.race([closed, graceOver]);
  clearTimeout(timer);
  if (!clean) server.closeAllConnections();
  return clean;
}
