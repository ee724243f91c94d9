import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAll } from "js-yaml";
import type { ControlPlane } from "./control-plane.js";
import { chartDir, type HelmResult, helm } from "./helm.js";

export const releaseName = "rel";
export const releaseNamespace = "webhooks";

type Anything = any;
export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: Anything };
  [key: string]: Anything;
};

const valuesDir = mkdtempSync(join(tmpdir(), "module-admission-chart-"));
let valuesFiles = 0;

/** Values go through a file, as users pass them: no --set escaping of commas, dots or base64. */
function valuesFile(values: object): string {
  const file = join(valuesDir, `values-${valuesFiles++}.json`);
  writeFileSync(file, JSON.stringify(values));
  return file;
}

export function helmLint(values: object): Promise<HelmResult> {
  return helm(["lint", chartDir, "--strict", "--namespace", releaseNamespace, "-f", valuesFile(values)]);
}

/**
 * What `helm template` is told of the cluster (`helm install` asks the cluster itself): by default the
 * control plane's version, serving ValidatingAdmissionPolicy in admissionregistration.k8s.io/v1 (1.30+);
 * `oldest` is the oldest the chart's kubeVersion admits; `withoutPolicies` a cluster that does not say it
 * serves that kind. `serverCapabilities` asks a real API server, as `helm install` does.
 */
export const clusters = {
  current: [
    "--kube-version",
    "1.37.2",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
  ],
  oldest: [
    "--kube-version",
    "1.34.0",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
  ],
  withoutPolicies: ["--kube-version", "1.34.0"],
} as const;

/**
 * helm's capability flags for a real API server, from its discovery as `helm install` reads it: the
 * version it reports (the emulated one under --emulated-version) and every group/version and
 * group/version/Kind it serves.
 */
export async function serverCapabilities(plane: ControlPlane): Promise<string[]> {
  const version = JSON.parse((await plane.get("/version")).body) as {
    gitVersion: string;
    emulationMajor?: string;
    emulationMinor?: string;
  };
  // A server emulating an older version stands in for a cluster of that version, which reports it.
  const emulated = version.emulationMajor && `v${version.emulationMajor}.${version.emulationMinor}.0`;
  const flags = ["--kube-version", emulated || version.gitVersion];
  const discovery = await plane.get("/apis", {
    accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  });
  const core = await plane.get("/api", {
    accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  });
  type Discovery = {
    items: {
      metadata: { name?: string };
      versions: { version: string; resources: { responseKind: { kind: string } }[] }[];
    }[];
  };
  for (const list of [core, discovery].map((reply) => JSON.parse(reply.body) as Discovery)) {
    for (const group of list.items) {
      for (const { version: v, resources } of group.versions) {
        const groupVersion = group.metadata.name ? `${group.metadata.name}/${v}` : v;
        flags.push("--api-versions", groupVersion);
        for (const kind of new Set(resources.map((resource) => resource.responseKind.kind)))
          flags.push("--api-versions", `${groupVersion}/${kind}`);
      }
    }
  }
  return flags;
}

/** A CA bundle of the right shape for existingSecret (the chart only passes it on). */
export const caBundle = Buffer.from(
  "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
).toString("base64");

export const addonOperator = {
  enabled: true,
  configMap: "addon-system/addon-operator",
  modulesVolume: { persistentVolumeClaim: { claimName: "modules" } },
};

/** Every certificate mode, and the optional features on top of the default. */
export const variants: Record<string, object> = {
  selfSigned: {},
  certManager: { certificates: { mode: "certManager" } },
  "certManager with an existing ClusterIssuer": {
    certificates: {
      mode: "certManager",
      certManager: { issuerRef: { name: "corp-ca", kind: "ClusterIssuer" } },
    },
  },
  existingSecret: { certificates: { mode: "existingSecret", existingSecret: { name: "my-tls", caBundle } } },
  "kyma webhook and addon-operator": { kyma: { webhook: { enabled: true } }, addonOperator },
  "kyma CRDs only": { kyma: { crd: { install: true } } },
  "kyma webhook and CRDs, certManager, Workspace check off": {
    kyma: { webhook: { enabled: true }, crd: { install: true } },
    certificates: { mode: "certManager" },
    workspaceCheck: { enabled: false },
  },
  "workspace check off": { workspaceCheck: { enabled: false } },
  "forkspacer replace mode": { forkspacer: { mode: "replace" } },
  "network policy with metrics peers": {
    networkPolicy: {
      enabled: true,
      metricsFrom: [{ namespaceSelector: { matchLabels: { team: "monitoring" } } }],
    },
  },
  "audit CronJob writing openreports": { audit: { schedule: "0 * * * *", reportApi: "openreports" } },
};

export function helmTemplate(
  values: object,
  cluster: readonly string[] = clusters.current,
): Promise<HelmResult> {
  return helm([
    ...cluster,
    "template",
    releaseName,
    chartDir,
    "--namespace",
    releaseNamespace,
    "--include-crds",
    "-f",
    valuesFile(values),
  ]);
}

/** `helm template` with these values, as objects; fails the test with helm's own words otherwise. */
export async function render(
  values: object = {},
  cluster: readonly string[] = clusters.current,
): Promise<Manifest[]> {
  const result = await helmTemplate(values, cluster);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return (loadAll(result.stdout) as (Manifest | null)[]).filter((doc): doc is Manifest => doc !== null);
}

export function find(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  if (!found)
    throw new Error(`no ${kind}${name ? ` ${name}` : ""} among ${manifests.map((m) => m.kind).join(", ")}`);
  return found;
}
