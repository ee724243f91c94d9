import type { Module } from "../../generated/module.js";
import { fitWarning } from "../../validation/warning.js";

/** What is legal but probably a mistake: the API server shows these to the user and admits the Module. */
export function moduleWarnings(module: Module): string[] {
  const warnings: string[] = [];
  const helm = module.spec.helm;
  if (helm?.releaseName !== undefined && helm.existingRelease) {
    warnings.push("spec.helm.releaseName is ignored: the release name is spec.helm.existingRelease.name");
  }
  if (helm?.chart.repo && !helm.chart.repo.version) {
    warnings.push(
      "spec.helm.chart.repo.version is not set: every reconcile installs the newest chart version",
    );
  }
  if (module.spec.custom?.permissions?.includes("controller")) {
    warnings.push(
      "spec.custom.permissions: controller gives the module a service account on the main cluster",
    );
  }
  for (const [i, item] of (module.config ?? []).entries()) {
    const spec = item.multipleOptions;
    if (spec?.max !== undefined && spec.values && spec.max > spec.values.length) {
      warnings.push(
        `config[${i}].multipleOptions.max is ${spec.max}, but only ${spec.values.length} values exist`,
      );
    }
  }
  return warnings.map(fitWarning);
}
