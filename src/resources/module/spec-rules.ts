import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ChartGit, ChartSource, HelmModule, ModuleSpec } from "../../generated/module.js";
import { goUrlParseError } from "../../go-net-url/parse.js";
import { hasTemplate } from "../../go-template/index.js";
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
  if (helm.chart.git) errors.push(...validateGit(helm.chart.git));
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
    // Adoption (internal/controller/module_operations.go, adoptExistingHelmRelease) looks the release
    // up by these fields as written: a template in them is never rendered, so no release is found.
    for (const key of ["name", "namespace"] as const) {
      const value = helm.existingRelease[key];
      if (value === undefined || !hasTemplate(value)) continue;
      const detail = "the operator adopts the release by this field unrendered: no release has this name";
      errors.push(
        ...byRule("module.existing-release-template", [
          fieldError.invalid(helmPath.child("existingRelease").child(key), value, detail),
        ]),
      );
    }
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

const gitPath = helmPath.child("chart").child("git");

/**
 * What the operator does with a git chart before cloning it (pkg/manager/helm.go): `url.Parse` of
 * the repo (an scp-like `git@host:org/repo.git` fails it), then authentication, where only
 * httpsSecretRef is supported (`auth: {}` fails with "unsupported Git chart authentication type
 * provided"). A repo with a template is rendered first, so only a literal repo is parsed here.
 */
function validateGit(git: ChartGit): FieldErrorList {
  const errors: FieldErrorList = [];
  if (!hasTemplate(git.repo)) {
    const problem = goUrlParseError(git.repo);
    if (problem !== undefined) {
      const detail = `${problem} (the operator parses it with Go's url.Parse; use ssh://git@host/org/repo.git)`;
      errors.push(...byRule("module.git-url", [fieldError.invalid(gitPath.child("repo"), git.repo, detail)]));
    }
  }
  if (git.auth && !git.auth.httpsSecretRef) {
    errors.push(
      ...byRule("module.git-auth", [
        fieldError.required(
          gitPath.child("auth").child("httpsSecretRef"),
          "the operator supports only httpsSecretRef: without it the install fails (unsupported Git chart authentication type provided)",
        ),
      ]),
    );
  }
  return errors;
}
