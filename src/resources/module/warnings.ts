import type { Module } from "../../generated/module.js";
import { fitWarning } from "../../validation/warning.js";
import { templateConfigRefs } from "./template-refs.js";

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
  const declared = new Set((module.config ?? []).map((item) => item.alias));
  const referenced = new Set<string>();
  forEachString(module.spec, (text) => {
    if (!text.includes("{{")) return;
    for (const alias of templateConfigRefs(text)) referenced.add(alias);
  });
  for (const alias of referenced) {
    if (!declared.has(alias)) {
      warnings.push(`spec: a template uses .config.${alias}, which the config schema does not declare`);
    }
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

/**
 * Every string in a JSON value, keys included. Cheaper than matching over JSON.stringify of the whole
 * spec (this runs on every admission), and a template cannot span two strings.
 */
function forEachString(value: unknown, visit: (text: string) => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) for (const item of value) forEachString(item, visit);
  else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      visit(key);
      forEachString(record[key], visit);
    }
  }
}
