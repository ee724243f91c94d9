import { warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { mastermindsParseError } from "../../validation/semver.js";

/**
 * Fields lifecycle-manager reads that the API server stores in forms it may fail on later: warned,
 * never denied (a template nothing looks up, or a module whose readiness is read elsewhere, runs).
 */
export const readWarningRules = warningRules({
  "moduletemplate.version": {
    summary: "a spec.version lifecycle-manager's semver library cannot parse",
    realSystem:
      "parses the template's version (Masterminds/semver NewVersion) in its skew check: a segment above Go's uint64 fails; a release meta naming it is refused (modulereleasemeta.version)",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:197-260 (markInvalidSkewUpdate: semver.NewVersion); github.com/Masterminds/semver/v3 v3.5.0",
    native: {
      by: "webhook",
      why: "a number beyond Go's uint64 in a version: CEL's integers are int64 and the version a string",
      callWhen: "has(object.spec) && has(object.spec.version) && object.spec.version.matches('[0-9]{20}')",
    },
  },
  "moduletemplate.manager": {
    summary:
      "a spec.manager that names no resource (an empty kind, version or name), or an apps kind without a namespace",
    realSystem:
      "takes the manager from the template's spec to find the resource that shows the module's readiness; its namespace may be left out only for a cluster-scoped resource",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 config/crd/bases/operator.kyma-project.io_moduletemplates.yaml; spec.manager's description (the resource that indicates the module's readiness; namespace optional for one not namespaced); pkg/templatelookup/regular.go takes the manager from the template's spec",
    native: {
      by: "webhook",
      why: "a few string comparisons, rare: left to the webhook",
      callWhen:
        "has(object.spec) && has(object.spec.manager) && (object.spec.manager.kind == '' || object.spec.manager.version == '' || object.spec.manager.name == '' || (object.spec.manager.group == 'apps' && (!has(object.spec.manager.namespace) || object.spec.manager.namespace == '')))",
    },
  },
});

const specPath = FieldPath.root("spec");

/** spec.version as lifecycle-manager's semver library reads it (rule moduletemplate.version). */
export function versionWarnings(spec: Partial<ModuleTemplateSpec>): FieldWarning[] {
  const problem = typeof spec.version === "string" ? mastermindsParseError(spec.version) : undefined;
  if (problem === undefined) return [];
  return [
    warningAt(
      specPath.child("version"),
      "spec.version cannot be parsed by lifecycle-manager (a segment above uint64): no release meta may name it",
    ),
  ];
}

/**
 * spec.manager as lifecycle-manager uses it (rule moduletemplate.manager): a kind, version and name
 * that identify a resource, and a namespace for the apps group's kinds (all namespaced).
 */
export function managerWarnings(spec: Partial<ModuleTemplateSpec>): FieldWarning[] {
  const manager = spec.manager;
  if (!manager) return [];
  const path = specPath.child("manager");
  const warnings = (["kind", "version", "name"] as const)
    .filter((field) => manager[field] === "")
    .map((field) =>
      warningAt(
        path.child(field),
        `spec.manager.${field} is empty: lifecycle-manager finds no resource to read the module's readiness from`,
      ),
    );
  if (manager.group === "apps" && (manager.namespace ?? "") === "")
    warnings.push(
      warningAt(
        path.child("namespace"),
        `spec.manager.namespace is not set: a ${manager.kind || "resource"} of group apps is namespaced, lifecycle-manager may not find it`,
      ),
    );
  return warnings;
}
