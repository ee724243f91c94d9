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
    const detail =
      "exactly one of spec.helm or spec.custom must be set (spec.source is the operator's old API)";
    errors.push(...byRule("module.source", [fieldError.required(specPath, detail)]));
  }
  if (spec.helm) errors.push(...validateHelm(spec.helm));
  // The operator's CRD admits "", but no container runs without an image.
  if (spec.custom && spec.custom.image.trim() === "") {
    errors.push(
      ...byRule("module.custom-image", [
        fieldError.required(specPath.child("custom").child("image"), "no container can run without an image"),
      ]),
    );
  }
  return errors;
}

function validateHelm(helm: HelmModule): FieldErrorList {
  const errors = byRule("module.chart-source", validateChartSource(helm.chart));
  if (helm.releaseName !== undefined) {
    for (const problem of dns1035LabelProblems(helm.releaseName, helmReleaseNameMaxLength)) {
      errors.push(
        ...byRule("module.release-name", [
          fieldError.invalid(helmPath.child("releaseName"), helm.releaseName, problem),
        ]),
      );
    }
  }
  if (helm.existingRelease) {
    const name = helm.existingRelease.name;
    for (const problem of helmReleaseNameProblems(name)) {
      errors.push(
        ...byRule("module.existing-release-name", [
          fieldError.invalid(helmPath.child("existingRelease").child("name"), name, problem),
        ]),
      );
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
