import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ChartSource, HelmModule, ModuleSpec } from "../../generated/module.js";
import {
  dns1035LabelProblems,
  helmReleaseNameMaxLength,
  helmReleaseNameProblems,
} from "../../validation/names.js";

const specPath = FieldPath.root("spec");
const helmPath = specPath.child("helm");

/** Rules on spec that hold for any operation: the module's source and its Helm release. */
export function validateSpec(spec: ModuleSpec): FieldErrorList {
  const errors: FieldErrorList = [];
  if (spec.helm && spec.custom) {
    errors.push(
      ...byRule("module.source", [
        fieldError.forbidden(specPath.child("custom"), "may not be set together with spec.helm"),
      ]),
    );
  } else if (!spec.helm && !spec.custom) {
    errors.push(
      ...byRule("module.source", [
        fieldError.required(specPath, "exactly one of spec.helm or spec.custom must be set"),
      ]),
    );
  }
  if (spec.helm) errors.push(...validateHelm(spec.helm));
  return errors;
}

function validateHelm(helm: HelmModule): FieldErrorList {
  const errors = byRule("module.chart-source", validateChartSource(helm.chart));
  if (helm.releaseName !== undefined) {
    for (const problem of dns1035LabelProblems(helm.releaseName, helmReleaseNameMaxLength)) {
      const error = fieldError.invalid(helmPath.child("releaseName"), helm.releaseName, problem);
      errors.push({ ...error, rule: "module.release-name" });
    }
  }
  if (helm.existingRelease) {
    const name = helm.existingRelease.name;
    for (const problem of helmReleaseNameProblems(name)) {
      const error = fieldError.invalid(helmPath.child("existingRelease").child("name"), name, problem);
      errors.push({ ...error, rule: "module.existing-release-name" });
    }
  }
  return errors;
}

const chartSources = ["repo", "git", "configMap"] as const;

function validateChartSource(chart: ChartSource): FieldErrorList {
  const chartPath = helmPath.child("chart");
  const set = chartSources.filter((source) => chart[source] !== undefined);
  if (set.length === 0) {
    return [fieldError.required(chartPath, "exactly one of repo, git or configMap must be set")];
  }
  return set
    .slice(1)
    .map((extra) =>
      fieldError.forbidden(chartPath.child(extra), `may not be set together with ${chartPath}.${set[0]}`),
    );
}
