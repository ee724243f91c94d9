import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAll } from "js-yaml";
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
 * What `helm template` is told of the cluster (`helm install` asks the cluster itself): by default a
 * current one, serving ValidatingAdmissionPolicy in admissionregistration.k8s.io/v1 (1.30+); `oldest`
 * is the oldest the chart's kubeVersion admits, where that kind is not served in v1.
 */
export const clusters = {
  current: [
    "--kube-version",
    "1.33.0",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
  ],
  oldest: ["--kube-version", "1.28.0"],
} as const;

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
