import cluster from "node:cluster";
import { parseArgs } from "node:util";
import { webhooksOf } from "../admission/resource-kind.js";
import { checkRuleIds, parseRuleActions, type RuleActions } from "../admission/rule-actions.js";
import { addonOperatorKinds } from "../resources/addon-operator-configmap/index.js";
import { type ReviewLogging, reviewLoggings } from "../server/app.js";
import { ensureCertDirLogged, serviceDnsNames } from "../server/certificates.js";
import { runPrimary } from "../server/cluster.js";
import { startHttpsServer } from "../server/https-server.js";
import { jsonLogger } from "../server/log.js";
import {
  registryCollector,
  reportToClusterPrimary,
  startMetricsServer,
  WebhookMetrics,
} from "../server/metrics.js";
import { compileStructureCheckers } from "../validation/structure.js";
import { prepareClusterFeatures } from "./serve-cluster.js";

export const serveUsage = `serve   Serve the admission webhooks over HTTPS
          --port N            port to listen on (default 8443)
          --cert-dir DIR      tls.crt, tls.key (and ca.crt); generated when absent, reloaded when
                              they change (default certs)
          --service NAME      Service name for generated certificates (default module-admission)
          --namespace NS      Service namespace for generated certificates (default module-admission)
          --metrics-port N    Prometheus metrics over plain HTTP at /metrics (default 8080)
          --metrics-bind-address [HOST]:PORT|0
                              where metrics listen, as controller-runtime's flag (default :8080, every
                              interface; 127.0.0.1:8080 keeps them in the pod); 0 turns them off
          --workers N         processes sharing the port, to use N cores (default 1)
          --drain-seconds S   after SIGTERM: answer with Connection: close, unready (default 15)
          --grace-seconds S   after SIGTERM: exit at the latest, cutting what is left (default 25)
          --kubeconfig FILE   cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)
          --workspace-check auto|off
                              deny Modules whose spec.workspace does not exist; auto: when there is
                              cluster access (default auto)
          --moduletemplate-check auto|off
                              deny Kyma ModuleReleaseMetas whose channel versions have no ModuleTemplate
                              <moduleName>-<version>; auto: when there is cluster access (default auto)
          --self-signed-secret NS/NAME
                              keep a self-signed CA and serving certificate in this kubernetes.io/tls
                              Secret: issued when empty or expiring, written to --cert-dir, renewed
          --webhook-configuration NAME
                              with --self-signed-secret: inject the CA into the caBundle of the
                              Mutating- and ValidatingWebhookConfiguration of this name
          --modules-dir DIR   addon-operator modules: serve /validate-addon-operator-configmap
          --global-hooks-dir DIR  addon-operator global hooks (openapi/ holds the global schema)
          --addon-configmap NS/NAME  the ConfigMap addon-operator reads (default addon-operator/addon-operator)
          --rule-action ID=deny|warn|off
                              a rule's errors deny (default), only warn, or are off; repeatable
          --log-reviews denied|all|none
                              a JSON line per review that denied (default), per review, or none`;

export interface ServeFlags {
  port: number;
  certDir: string;
  service: string;
  namespace: string;
  /** Where metrics listen; undefined: off. */
  metrics?: { host?: string; port: number };
  workers: number;
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
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "8443" },
      "cert-dir": { type: "string", default: "certs" },
      service: { type: "string", default: "module-admission" },
      namespace: { type: "string", default: "module-admission" },
      "metrics-port": { type: "string", default: "8080" },
      "metrics-bind-address": { type: "string" },
      workers: { type: "string", default: "1" },
      "drain-seconds": { type: "string", default: "15" },
      "grace-seconds": { type: "string", default: "25" },
      kubeconfig: { type: "string" },
      "workspace-check": { type: "string", default: "auto" },
      "moduletemplate-check": { type: "string", default: "auto" },
      "self-signed-secret": { type: "string" },
      "webhook-configuration": { type: "string" },
      "modules-dir": { type: "string" },
      "global-hooks-dir": { type: "string" },
      "addon-configmap": { type: "string", default: "addon-operator/addon-operator" },
      "rule-action": { type: "string", multiple: true },
      "log-reviews": { type: "string", default: "denied" },
    },
  });
  return {
    port: number(values, "port", { integer: true, max: 65535 }),
    certDir: values["cert-dir"],
    service: values.service,
    namespace: values.namespace,
    metrics: metricsAddress(values),
    workers: number(values, "workers", { integer: true, min: 1, max: 256 }),
    drainMs: number(values, "drain-seconds", {}) * 1000,
    graceMs: number(values, "grace-seconds", {}) * 1000,
    kubeconfig: values.kubeconfig,
    workspaceCheck: values["workspace-check"],
    moduleTemplateCheck: values["moduletemplate-check"],
    selfSignedSecret: values["self-signed-secret"],
    webhookConfiguration: values["webhook-configuration"],
    modulesDir: values["modules-dir"],
    globalHooksDir: values["global-hooks-dir"],
    addonConfigMap: values["addon-configmap"],
    ruleActions: parseRuleActions(values["rule-action"] ?? []),
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
  const match = /^(.*):(\d{1,5})$/.exec(address);
  const bound = Number(match?.[2]);
  if (!match || bound > 65535) {
    throw new Error(`--metrics-bind-address: ${JSON.stringify(address)} is not [HOST]:PORT or 0`);
  }
  // `[::1]:8080`: the brackets are the address's, not the host's.
  const host = (match[1] ?? "").replace(/^\[(.*)\]$/, "$1");
  return host === "" ? { port: bound } : { host, port: bound };
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

export async function serve(args: string[]): Promise<void> {
  const flags = parseServeFlags(args);
  if (cluster.isPrimary && flags.workers > 1) {
    // Workers must share one certificate: generate it once here, before they start. (A selfSigned
    // Secret is shared by design; each worker reads it.)
    if (flags.selfSignedSecret === undefined) {
      await ensureCertDirLogged(flags.certDir, serviceDnsNames(flags.service, flags.namespace), jsonLogger);
    }
    await runPrimary({
      workers: flags.workers,
      metrics: flags.metrics,
      graceMs: flags.graceMs,
      log: jsonLogger,
    });
    return;
  }
  await serveProcess(flags);
}

/** The webhook in this process (the only one, or one worker of several). */
async function serveProcess(flags: ServeFlags): Promise<void> {
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
  const kinds = [
    ...clusterFeatures.kinds,
    ...addonOperatorKinds({
      "modules-dir": flags.modulesDir,
      "global-hooks-dir": flags.globalHooksDir,
      "addon-configmap": flags.addonConfigMap,
    }),
  ];
  checkRuleIds(flags.ruleActions, kinds);
  // The kinds' structure checkers compile on first use; a server compiles them before it listens.
  compileStructureCheckers();
  // Nothing is recorded when nothing serves it (--metrics-bind-address 0).
  const metrics = flags.metrics ? new WebhookMetrics() : undefined;
  if (metrics && cluster.isWorker) reportToClusterPrimary(metrics);
  const running = await startHttpsServer({
    port: flags.port,
    certDir: flags.certDir,
    kinds,
    log: jsonLogger,
    isReady: clusterFeatures.isReady,
    metrics,
    ruleActions: flags.ruleActions,
    logReviews: flags.logReviews,
    drainMs: flags.drainMs,
    graceMs: flags.graceMs,
  });
  clusterFeatures.attach(running.server);
  let metricsServer: { port: number; close(): Promise<void> } | undefined;
  if (cluster.isPrimary && flags.metrics && metrics) {
    metricsServer = await startMetricsServer(
      flags.metrics.port,
      registryCollector(metrics.registry),
      flags.metrics.host,
    );
    jsonLogger({
      msg: `metrics on http://localhost:${metricsServer.port}/metrics`,
      metricsPort: metricsServer.port,
    });
  }
  const paths = kinds.flatMap((kind) => webhooksOf(kind).map((webhook) => webhook.path));
  jsonLogger({ msg: `serving on https://localhost:${running.port}`, port: running.port, paths });
  const terminate = async () => {
    const clean = await running.shutdown();
    await Promise.all([metricsServer?.close(), clusterFeatures.stop()]);
    process.exit(clean ? 0 : 1);
  };
  process.once("SIGTERM", terminate);
  process.once("SIGINT", terminate);
}
