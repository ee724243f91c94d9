import { FieldPath } from "../../admission/field-path.js";
import { type RuleWarning, ruleWarnings, warningAt } from "../../admission/warning.js";
import type { Module } from "../../generated/module.js";

/** The rules of what is legal but probably a mistake: each can be turned off (`--rule-action ID=off`). */
export const moduleWarningRules = [
  "module.unknown-field",
  "module.release-name-ignored",
  "module.chart-version-unset",
  "module.controller-permission",
  "module.multiple-options-max",
  "module.config-schema-warning",
  "module.config-undeclared",
  "module.template-warning",
] as const;

/** What is legal but probably a mistake: the API server shows these to the user and admits the Module. */
export function moduleWarnings(module: Module): RuleWarning[] {
  const warnings: RuleWarning[] = [];
  const warn = (rule: (typeof moduleWarningRules)[number], field: FieldPath, text: string) =>
    warnings.push(...ruleWarnings(rule, [warningAt(field, text)]));
  const spec = FieldPath.root("spec");
  const helm = module.spec.helm;
  if (helm?.releaseName !== undefined && helm.existingRelease) {
    warn(
      "module.release-name-ignored",
      spec.child("helm").child("releaseName"),
      "spec.helm.releaseName is ignored: the release name is spec.helm.existingRelease.name",
    );
  }
  if (helm?.chart.repo && !helm.chart.repo.version) {
    warn(
      "module.chart-version-unset",
      spec.child("helm").child("chart").child("repo").child("version"),
      "spec.helm.chart.repo.version is not set: every reconcile installs the newest chart version",
    );
  }
  if (module.spec.custom?.permissions?.includes("controller")) {
    warn(
      "module.controller-permission",
      spec.child("custom").child("permissions"),
      "spec.custom.permissions: controller gives the module a service account on the main cluster",
    );
  }
  for (const [i, item] of (module.config ?? []).entries()) {
    const spec = item.multipleOptions;
    if (spec?.max !== undefined && spec.values && spec.max > spec.values.length) {
      warn(
        "module.multiple-options-max",
        FieldPath.root("config").index(i).child("multipleOptions").child("max"),
        `config[${i}].multipleOptions.max is ${spec.max}, but only ${spec.values.length} values exist`,
      );
    }
  }
  return warnings;
}
