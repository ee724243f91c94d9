import { setTimeout as sleep } from "node:timers/promises";
import { ApiextensionsV1Api, type KubeConfig, setHeaderOptions } from "@kubernetes/client-node";
import { buildCrd } from "../codegen/crd.js";
import { loadSchemaSources } from "../schema/schema-source.js";
import { apiErrorMessage, httpStatus } from "./api-errors.js";

export const fieldManager = "module-admission";

export interface Crd {
  metadata: { name: string };
  [field: string]: unknown;
}

/**
 * The CRDs of the schema sources: the same objects `npm run generate` writes into the chart. Sources
 * marked `crd.optional` (a CRD another product ships, such as Kyma's) only when asked for.
 */
export function projectCrds(schemasDir: string, includeOptional = false): Crd[] {
  return loadSchemaSources(schemasDir)
    .filter((source) => includeOptional || (source.crd as { optional?: boolean }).optional !== true)
    .map((source) => buildCrd(source) as Crd);
}

/**
 * Server-side apply of one CRD as field manager module-admission. A conflict with another manager
 * (Helm, kubectl) fails unless `force`, naming the flag that takes ownership.
 */
export async function applyCrd(kubeConfig: KubeConfig, crd: Crd, force: boolean): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  try {
    await api.patchCustomResourceDefinition(
      { name: crd.metadata.name, body: crd, fieldManager, ...(force ? { force: true } : {}) },
      setHeaderOptions("Content-Type", "application/apply-patch+yaml"),
    );
  } catch (error) {
    const hint =
      httpStatus(error) === 409 ? "; rerun with --force-conflicts to take ownership of those fields" : "";
    throw new Error(
      `applying CustomResourceDefinition ${crd.metadata.name}: ${apiErrorMessage(error)}${hint}`,
    );
  }
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** Waits until the API server reports the CRD Established (its resource is served), or fails on timeout. */
export async function waitEstablished(
  kubeConfig: KubeConfig,
  name: string,
  timeoutMs: number,
  pollMs = 500,
): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let conditions: Condition[];
    try {
      conditions = ((await api.readCustomResourceDefinition({ name })).status?.conditions ??
        []) as Condition[];
    } catch (error) {
      throw new Error(`reading CustomResourceDefinition ${name}: ${apiErrorMessage(error)}`);
    }
    const established = conditions.find((condition) => condition.type === "Established");
    if (established?.status === "True") return;
    const namesAccepted = conditions.find((condition) => condition.type === "NamesAccepted");
    if (namesAccepted?.status === "False") {
      throw new Error(`CustomResourceDefinition ${name}: names not accepted: ${namesAccepted.message ?? ""}`);
    }
    if (Date.now() >= deadline) {
      const why = established ? `: ${established.reason ?? ""} ${established.message ?? ""}`.trimEnd() : "";
      throw new Error(`CustomResourceDefinition ${name} not Established after ${timeoutMs / 1000}s${why}`);
    }
    await sleep(pollMs);
  }
}
