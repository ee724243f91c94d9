import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectCrds } from "../../src/kube/crds.js";
import { type Manifest, releaseNamespace, render, serverCapabilities } from "./chart.js";
import { type ControlPlane, guardChild } from "./control-plane.js";
import { eventually } from "./eventually.js";
import { helmModule } from "./modules.js";
import { buildCommand, startServe } from "./serve-process.js";

const schemasDir = fileURLToPath(new URL("../../schemas", import.meta.url));

/** A `serve` process on 127.0.0.1, as the real API server calls it: its port, its certificates, its logs. */
export interface LocalServe {
  port: number;
  /** serve's --cert-dir: ca.crt is the caBundle the API server verifies it with. */
  certDir: string;
  /** serve's JSON log lines so far (with --log-reviews all: one per review). */
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * Starts the built `serve` (dist/, as users run it) on free ports with its own certificates and, by
 * default, cluster access to `plane` (the Workspace and ModuleTemplate checks list and watch it). It is
 * stopped before the plane is (plane.defer), or by `stop()`.
 */
export async function startLocalServe(
  plane: ControlPlane | undefined,
  args: string[] = [],
  options: { port?: number; kubeconfig?: string } = {},
): Promise<LocalServe> {
  const certDir = mkdtempSync(join(tmpdir(), "serve-certs-"));
  const kubeconfig = options.kubeconfig ?? plane?.kubeconfigPath;
  const serve = await startServe(
    [
      "--port",
      String(options.port ?? 0),
      "--metrics-port",
      "0",
      "--cert-dir",
      certDir,
      "--log-reviews",
      "all",
      "--drain-seconds",
      "0",
      ...(kubeconfig ? ["--kubeconfig", kubeconfig] : []),
      ...args,
    ],
    1,
    buildCommand(),
  );
  guardChild(serve.child);
  const stop = async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill("SIGTERM");
    await serve.exited;
  };
  plane?.defer(stop);
  return { port: serve.port, certDir, logs: serve.logs, stop };
}

/**
 * The chart's webhook configurations as the API server must call a `serve` running on this machine:
 * rendered with helm (`values` as a user gives them), each webhook's `service` turned into
 * `url: https://127.0.0.1:<port><path>` and its caBundle the CA in serve's --cert-dir.
 */
export async function localWebhookConfigurations(
  serve: { port: number; certDir?: string },
  values: object = {},
): Promise<Manifest[]> {
  // Without a cert dir, no caBundle: serve's selfSigned mode patches its own CA in.
  const caBundle = serve.certDir ? readFileSync(join(serve.certDir, "ca.crt")).toString("base64") : undefined;
  const kinds = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];
  return (await render(values))
    .filter((manifest) => kinds.includes(manifest.kind))
    .map((configuration) => ({
      ...configuration,
      webhooks: (configuration.webhooks as { clientConfig: { service: { path: string } } }[]).map(
        (webhook) => ({
          ...webhook,
          clientConfig: {
            url: `https://127.0.0.1:${serve.port}${webhook.clientConfig.service.path}`,
            ...(caBundle ? { caBundle } : {}),
          },
        }),
      ),
    }));
}

export interface RegisteredWebhooks {
  configurations: Manifest[];
  /** Deletes the configurations again (the API server stops calling serve). */
  unregister(): Promise<void>;
}

/**
 * Registers the chart's webhook configurations (see localWebhookConfigurations) in the API server and
 * waits until it calls them: the API server picks new configurations up asynchronously, so this sends
 * probes (dry-run creates of a Module in a namespace of their own) until the mutating webhook has named
 * the release and the validating webhook has denied a config value out of range. Installs the project's
 * CRDs first where they are not (a Module probe needs them), and keeps a Workspace for the probe.
 */
export async function registerChartWebhooks(
  plane: ControlPlane,
  serve: { port: number; certDir: string },
  values: object = {},
): Promise<RegisteredWebhooks> {
  await installProjectCrds(plane);
  const configurations = await localWebhookConfigurations(serve, values);
  await kubectlApply(plane, configurations);
  await waitUntilCalled(plane);
  return {
    configurations,
    unregister: async () => {
      for (const configuration of configurations) {
        const run = await plane.kubectl([
          "delete",
          configuration.kind.toLowerCase(),
          configuration.metadata.name,
          "--ignore-not-found",
        ]);
        if (run.code !== 0) throw new Error(`kubectl delete: ${run.stderr}`);
      }
    },
  };
}

/**
 * A `serve` without its cluster lookups (the Workspace and ModuleTemplate checks off: lookups of other
 * objects are what `validate` does not do), registered as the chart's webhooks in the plane's API server
 * for the Forkspacer kinds (replace mode) and Kyma's.
 */
export async function registerServeWithoutLookups(plane: ControlPlane): Promise<RegisteredWebhooks> {
  const serve = await startLocalServe(plane, ["--workspace-check", "off", "--moduletemplate-check", "off"]);
  return registerChartWebhooks(plane, serve, {
    forkspacer: { mode: "replace" },
    kyma: { webhook: { enabled: true } },
  });
}

/** Server-side applies the project's CRDs (the optional ones too) and waits until they are Established. */
export async function installProjectCrds(plane: ControlPlane, includeOptional = true): Promise<void> {
  const crds = projectCrds(schemasDir, includeOptional);
  await kubectlApply(plane, crds, ["--server-side", "--field-manager", "module-admission"]);
  const wait = await plane.kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=120s",
    ...crds.map((crd) => `customresourcedefinition/${crd.metadata.name}`),
  ]);
  if (wait.code !== 0) throw new Error(`kubectl wait: ${wait.stderr}`);
}

/**
 * `kubectl apply -f -` of these objects, failing with kubectl's own words. They go as YAML documents,
 * not a v1 List: kubectl checks a List's items on the client against the OpenAPI schema, where a field
 * that is required and defaulted (the server defaults it before validating) counts as missing.
 */
export async function kubectlApply(plane: ControlPlane, objects: object[], flags: string[] = []) {
  const run = await plane.kubectl(["apply", ...flags, "-f", "-"], { input: yamlStream(objects) });
  if (run.code !== 0) throw new Error(`kubectl apply: ${run.stderr}`);
  return run;
}

/** Objects as a stream of YAML documents (JSON is YAML), as `kubectl apply -f` reads a file of several. */
export const yamlStream = (objects: object[]): string =>
  objects.map((object) => JSON.stringify(object)).join("\n---\n");

const probeNamespace = "webhook-probe";

/**
 * Waits until the API server calls the chart's Module webhooks: probes (dry-run creates of a Module in
 * a namespace of their own, with a Workspace there) until the mutating webhook has named the release
 * and the validating webhook has denied a config value out of range.
 */
export async function waitUntilCalled(plane: ControlPlane): Promise<void> {
  const namespace = await plane.kubectl([
    "get",
    "namespace",
    probeNamespace,
    "--ignore-not-found",
    "-o",
    "name",
  ]);
  if (namespace.stdout.trim() === "") {
    await kubectlApply(plane, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: probeNamespace } }]);
  }
  await kubectlApply(plane, [
    {
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Workspace",
      metadata: { name: "probe", namespace: probeNamespace },
      spec: { type: "kubernetes", hibernated: false, connection: { type: "local" } },
    },
  ]);
  const probe = (replicas: number) => {
    const module = helmModule();
    module.metadata = { name: "probe", namespace: probeNamespace };
    module.spec.workspace = { name: "probe", namespace: probeNamespace };
    if (module.spec.helm) delete module.spec.helm.releaseName;
    module.spec.config = { ...module.spec.config, replicas };
    return plane.kubectl(["create", "--dry-run=server", "-o", "json", "-f", "-"], {
      input: JSON.stringify(module),
    });
  };
  await eventually(
    "the API server calls the mutating webhook (a probe Module gets a release name)",
    async () => {
      const run = await probe(1);
      return run.code === 0 && typeof JSON.parse(run.stdout).spec?.helm?.releaseName === "string";
    },
    120_000,
  );
  await eventually(
    "the API server calls the validating webhook (a probe Module's config value out of range is denied)",
    async () => {
      const run = await probe(99);
      // The webhook's rule id says who denied: the CRD cannot check a value against the Module's config schema.
      return /spec\.config\.replicas: Invalid value: 99: .*\(rule module\.config-value\)/.test(run.stderr);
    },
    120_000,
  );
}

/** Kinds of cert-manager, which no test installs: the certManager modes' Certificate and Issuer. */
const certManagerKinds = new Set(["cert-manager.io/v1/Certificate", "cert-manager.io/v1/Issuer"]);

/**
 * The chart rendered with helm as `helm install` renders it for this API server (its version and the
 * kinds it serves), applied with `kubectl apply --dry-run=server` into the release namespace: the
 * server decodes, defaults, validates and admits every object without storing it. cert-manager's
 * kinds are left out (no cert-manager here) and returned, so a test can say so.
 */
export async function applyChartDryRun(
  plane: ControlPlane,
  values: object,
): Promise<{ code: number; stdout: string; stderr: string; applied: Manifest[]; leftOut: Manifest[] }> {
  const exists = await plane.kubectl([
    "get",
    "namespace",
    releaseNamespace,
    "--ignore-not-found",
    "-o",
    "name",
  ]);
  if (exists.stdout.trim() === "") await plane.kubectl(["create", "namespace", releaseNamespace]);
  const manifests = await render(values, await serverCapabilities(plane));
  const leftOut = manifests.filter((m) => certManagerKinds.has(`${m.apiVersion}/${m.kind}`));
  const applied = manifests.filter((m) => !leftOut.includes(m));
  const run = await plane.kubectl(["apply", "--dry-run=server", "--namespace", releaseNamespace, "-f", "-"], {
    input: JSON.stringify({ apiVersion: "v1", kind: "List", items: applied }),
  });
  return { ...run, applied, leftOut };
}
