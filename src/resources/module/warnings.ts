import type { Module } from "../../generated/module.js";
import { fitWarning } from "../../validation/warning.js";

const templateConfigRef = /\{\{[^}]*?\.config\.([A-Za-z_][A-Za-z0-9_]*)/g;

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
  collectConfigReferences(module.spec, referenced);
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
 * The `.config.X` names that templates in a JSON value use, keys included. One walk over the values,
 * no callback per string, and the regex only where a template opens (this runs on every admission; a
 * template cannot span two strings).
 */
function collectConfigReferences(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (value.includes("{{")) addReferences(value, into);
  } else if (Array.isArray(value)) {
    for (const item of value) collectConfigReferences(item, into);
  } else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (key.includes("{{")) addReferences(key, into);
      collectConfigReferences(record[key], into);
    }
  }
}

function addReferences(text: string, into: Set<string>): void {
  for (const match of text.matchAll(templateConfigRef)) into.add(match[1] ?? "");
}
