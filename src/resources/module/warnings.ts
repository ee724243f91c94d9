import { formatMessage, type RuleId, warningRules } from "../../admission/rule-catalogue.js";
import { type RuleWarning, ruleWarnings, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, itemRule, objectRule, present } from "../../cel/policy-cel.js";
import type { Module } from "../../generated/module.js";
import { largeConfig } from "./config-items.js";

const types = "forkspacer/forkspacer v0.1.24 api/v1/module_types.go";

/** The warnings' wording, for the checks below and the policies alike. */
const releaseNameIgnored = {
  ignored: "spec.helm.releaseName is ignored: the release name is spec.helm.existingRelease.name",
} as const;
const chartVersionUnset = {
  unset: "spec.helm.chart.repo.version is not set: every reconcile installs the newest chart version",
} as const;
const controllerPermission = {
  controller: "spec.custom.permissions: controller gives the module a service account on the main cluster",
} as const;
const multipleOptionsMax = { unreachable: "max is {max}, but only {count} values exist" } as const;

/** The rules of what is legal but probably a mistake: each can be turned off (`--rule-action ID=off`). */
export const moduleWarningRules = warningRules({
  "module.release-name-ignored": {
    summary: "spec.helm.releaseName beside existingRelease",
    realSystem: "ignores releaseName: the release adopted is existingRelease.name",
    upstream:
      "forkspacer/forkspacer v0.1.24 internal/controller/module_operations.go, adoptExistingHelmRelease",
    messages: releaseNameIgnored,
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: `!(${present("object.spec.helm.releaseName")} && has(object.spec.helm.existingRelease))`,
            field: "spec.helm.releaseName",
            detail: celMessage(releaseNameIgnored.ignored),
          }),
        ],
      },
    },
  },
  "module.chart-version-unset": {
    summary: "a repo chart without a version",
    realSystem: "installs whichever chart version is newest when it installs: two installs may differ",
    upstream: "forkspacer/forkspacer v0.1.24 pkg/manager/helm.go, ModuleHelmManager.Install",
    messages: chartVersionUnset,
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: `!(${present("object.spec.helm.chart.repo")}) || (has(object.spec.helm.chart.repo.version) && object.spec.helm.chart.repo.version != '')`,
            field: "spec.helm.chart.repo.version",
            detail: celMessage(chartVersionUnset.unset),
          }),
        ],
      },
    },
  },
  "module.controller-permission": {
    summary: "spec.custom.permissions: controller",
    realSystem: "runs the module's pod as the operator's own service account, forkspacer-controller-manager",
    upstream: "forkspacer/forkspacer v0.1.24 pkg/manager/custom.go",
    messages: controllerPermission,
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: `!(${present("object.spec.custom.permissions")}) || !('controller' in object.spec.custom.permissions)`,
            field: "spec.custom.permissions",
            detail: celMessage(controllerPermission.controller),
          }),
        ],
      },
    },
  },
  "module.multiple-options-max": {
    summary: "multipleOptions max above the number of values",
    realSystem: "accepts it; the max can never be reached",
    upstream: `${types}, ConfigItemSpecMultipleOptions`,
    messages: multipleOptionsMax,
    native: {
      by: "policy",
      policy: {
        validations: [
          itemRule({
            list: "object.config",
            field: "config",
            ok: (item) =>
              `!has(${item}.multipleOptions) || !has(${item}.multipleOptions.max) || !has(${item}.multipleOptions.values) || ${item}.multipleOptions.max <= ${item}.multipleOptions.values.size()`,
            below: () => "'.multipleOptions.max'",
            detail: (item) =>
              celMessage(multipleOptionsMax.unreachable, {
                max: `string(${item}.multipleOptions.max)`,
                count: `string(${item}.multipleOptions.values.size())`,
              }),
            spare: false,
          }),
        ],
        largeWhen: largeConfig,
      },
    },
  },
});

/** What is legal but probably a mistake: the API server shows these to the user and admits the Module. */
export function moduleWarnings(module: Module): RuleWarning[] {
  const warnings: RuleWarning[] = [];
  const warn = (rule: RuleId, field: FieldPath, text: string) =>
    warnings.push(...ruleWarnings(rule, [warningAt(field, text)]));
  const spec = FieldPath.root("spec");
  const helm = module.spec.helm;
  if (helm?.releaseName !== undefined && helm.existingRelease) {
    warn("module.release-name-ignored", spec.child("helm").child("releaseName"), releaseNameIgnored.ignored);
  }
  if (helm?.chart.repo && !helm.chart.repo.version) {
    warn(
      "module.chart-version-unset",
      spec.child("helm").child("chart").child("repo").child("version"),
      chartVersionUnset.unset,
    );
  }
  if (module.spec.custom?.permissions?.includes("controller")) {
    warn(
      "module.controller-permission",
      spec.child("custom").child("permissions"),
      controllerPermission.controller,
    );
  }
  for (const [i, item] of (module.config ?? []).entries()) {
    const spec = item.multipleOptions;
    if (spec?.max !== undefined && spec.values && spec.max > spec.values.length) {
      const field = FieldPath.root("config").index(i).child("multipleOptions").child("max");
      const text = formatMessage(multipleOptionsMax.unreachable, {
        max: String(spec.max),
        count: String(spec.values.length),
      });
      // The field first, as the policy's message (and every field error) has it.
      warn("module.multiple-options-max", field, `${field}: ${text}`);
    }
  }
  return warnings;
}
