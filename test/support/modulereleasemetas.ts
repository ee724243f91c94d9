import { readFileSync } from "node:fs";
import { load as loadYaml } from "js-yaml";
import type { ModuleReleaseMeta } from "../../src/generated/modulereleasemeta.js";
import type { KubeObject } from "./fake-kube-api.js";
import { admissionReview } from "./reviews.js";

export type ReleaseMetaWithSpec = ModuleReleaseMeta & { spec: NonNullable<ModuleReleaseMeta["spec"]> };

/** Keda's release meta as lifecycle-manager's docs show one: two channels in kcp-system. */
export function kedaReleaseMeta(
  channels: Record<string, string> = { regular: "1.2.0", fast: "1.3.0" },
): ReleaseMetaWithSpec {
  return {
    apiVersion: "operator.kyma-project.io/v1beta2",
    kind: "ModuleReleaseMeta",
    metadata: { name: "keda", namespace: "kcp-system" },
    spec: {
      moduleName: "keda",
      ocmComponentName: "kyma-project.io/module/keda",
      channels: Object.entries(channels).map(([channel, version]) => ({ channel, version })),
    },
  };
}

/** An AdmissionReview for a ModuleReleaseMeta, as the API server sends it. */
export function releaseMetaReview(options: {
  operation: "CREATE" | "UPDATE";
  object: unknown;
  oldObject?: unknown;
}) {
  return admissionReview({
    ...options,
    group: "operator.kyma-project.io",
    version: "v1beta2",
    kind: "ModuleReleaseMeta",
    resource: "modulereleasemetas",
  });
}

/** The ModuleTemplate CRD as the chart carries it (generated from schemas/moduletemplate.yaml). */
export function moduleTemplateCrd(): KubeObject {
  const path = "../../charts/module-admission/files/crds/moduletemplates.operator.kyma-project.io.yaml";
  return loadYaml(readFileSync(new URL(path, import.meta.url), "utf8")) as KubeObject;
}

/** A ModuleTemplate as the cache sees it: only its name matters to the check. */
export function namedTemplate(name: string, namespace = "kcp-system"): KubeObject {
  return {
    apiVersion: "operator.kyma-project.io/v1beta2",
    kind: "ModuleTemplate",
    metadata: { name, namespace },
    spec: { descriptor: { component: { name: "kyma-project.io/module/keda" } } },
  };
}
