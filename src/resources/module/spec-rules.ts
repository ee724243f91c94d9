import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, quoted, valueRule } from "../../cel/policy-cel.js";
import type { ChartGit, ChartSource, HelmModule, ModuleSpec } from "../../generated/module.js";
import { hasTemplate } from "../../go/template/index.js";
import {
  dns1035LabelProblems,
  dns1123LabelProblems,
  helmReleaseNameMaxLength,
  helmReleaseNameProblems,
} from "../../validation/names.js";
import { installInputErrors, installInputRules } from "./install-inputs.js";

const webhook = "forkspacer/forkspacer v0.1.24 internal/webhook/v1/module_webhook.go";
/** module.existing-release-template's wording, for its check and its policy alike. */
const existingReleaseTemplate = {
  unrendered: "the operator adopts the release by this field unrendered: no release has this name",
} as const;
const types = "forkspacer/forkspacer v0.1.24 api/v1/module_types.go";

/** The spec's own rules: sources, chart references, release names, the custom image. */
export const specRules = [
  ...installInputRules,
  ...errorRules({
    "module.source": {
      summary: "not exactly one of spec.helm and spec.custom",
      realSystem:
        "with neither, the install fails (must define either Helm or Custom); with both, it installs spec.helm and ignores spec.custom",
      stricter: "both set: the operator runs spec.helm and drops spec.custom silently",
      upstream:
        "forkspacer/forkspacer v0.1.24 internal/controller/module_controller.go; api/v1/module_types.go, ModuleSpec",
      native: { by: "crd" },
    },
    "module.chart-source": {
      summary: "not exactly one chart source (repo, git, configMap) in spec.helm.chart",
      realSystem: "its webhook refuses it on CREATE",
      upstream: `${webhook}, ValidateCreate`,
      native: { by: "crd" },
    },
    "module.git-auth": {
      summary: "git chart authentication without httpsSecretRef",
      realSystem: "the install fails: unsupported Git chart authentication type provided",
      upstream: "forkspacer/forkspacer v0.1.24 pkg/manager/helm.go, ModuleHelmManager.Install",
      native: { by: "crd" },
    },
    "module.release-name": {
      summary: "spec.helm.releaseName not a DNS-1035 label of at most 53 characters",
      realSystem: "its CRD asks only for a DNS-1123 subdomain, with no length limit",
      stricter:
        "Helm refuses names over 53 characters, and release names become label values and resource names",
      restatedAt: ["spec.helm.releaseName"],
      upstream: "helm/helm pkg/chartutil ValidateReleaseName; forkspacer CRD's releaseName pattern",
      native: { by: "crd" },
    },
    "module.existing-release-name": {
      summary: "spec.helm.existingRelease.name that no Helm release can have",
      realSystem: "the adoption finds no release, and the install fails",
      upstream: "helm/helm pkg/chartutil ValidateReleaseName",
      native: { by: "crd" },
    },
    "module.existing-release-template": {
      summary: "a template in spec.helm.existingRelease.name or .namespace",
      realSystem:
        "looks the release up by these fields unrendered: no release is found, and the install fails",
      upstream:
        "forkspacer/forkspacer v0.1.24 internal/controller/module_operations.go, adoptExistingHelmRelease",
      messages: existingReleaseTemplate,
      // A policy: the CRD's cost estimate refuses this test of the (unbounded) namespace.
      native: {
        by: "policy",
        policy: {
          validations: (["name", "namespace"] as const).map((key) =>
            valueRule({
              path: `object.spec.helm.existingRelease.${key}`,
              field: `spec.helm.existingRelease.${key}`,
              ok: (v) => `!(${v}.contains('{{') && ${v}.contains('}}'))`,
              detail: (v) =>
                `'Invalid value: ' + ${quoted(v)} + ': ' + ${celMessage(existingReleaseTemplate.unrendered)}`,
            }),
          ),
        },
      },
    },
    "module.custom-image": {
      summary: "an empty or blank spec.custom.image",
      realSystem: 'its CRD admits ""; the module\'s pod cannot start',
      stricter: "no container runs without an image",
      upstream: `${types}, ModuleSpecCustom; pkg/manager/custom.go`,
      native: { by: "crd" },
    },
  }),
];

const specPath = FieldPath.root("spec");
const helmPath = specPath.child("helm");

/**
 * Rules on spec that hold for any operation: the module's source and its Helm release. `sent` is the
 * spec as sent, before the structure gate took out what the schema refuses: which sources are set is
 * read from it, as the operator reads them (a chart repo whose url is "" is still a repo, and a git
 * source added beside it is a second source).
 */
export function validateSpec(spec: ModuleSpec, sent: unknown = spec): FieldErrorList {
  const errors: FieldErrorList = [];
  const sentSpec = asMap(sent);
  if (isSet(sentSpec, "helm") && isSet(sentSpec, "custom")) {
    errors.push(
      ...byRule("module.source", [
        fieldError.forbidden(specPath.child("custom"), "may not be set together with spec.helm"),
      ]),
    );
  } else if (!isSet(sentSpec, "helm") && !isSet(sentSpec, "custom")) {
    const detail =
      "exactly one of spec.helm or spec.custom must be set (spec.source is the operator's old API)";
    errors.push(...byRule("module.source", [fieldError.required(specPath, detail)]));
  }
  if (spec.helm) errors.push(...validateHelm(spec.helm, asMap(asMap(sentSpec?.helm)?.chart)));
  // The operator's CRD admits "", but no container runs without an image.
  if (spec.custom && spec.custom.image.trim() === "") {
    errors.push(
      ...byRule("module.custom-image", [
        fieldError.required(specPath.child("custom").child("image"), "no container can run without an image"),
      ]),
    );
  } else if (spec.custom && !hasTemplate(spec.custom.image)) {
    // Written literally (a template is checked as it renders: template-rules).
    const { image } = spec.custom;
    errors.push(
      ...installInputErrors("custom.image", specPath.child("custom").child("image"), image, image, false),
    );
  }
  return errors;
}

/** A map as sent, or undefined. */
const asMap = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** Whether a field is set as the operator's Go types read it: present and not null (a nil pointer). */
const isSet = (map: Record<string, unknown> | undefined, key: string): boolean =>
  map !== undefined && Object.hasOwn(map, key) && map[key] !== null && map[key] !== undefined;

function validateHelm(helm: HelmModule, sentChart: Record<string, unknown> | undefined): FieldErrorList {
  const errors = byRule("module.chart-source", validateChartSource(sentChart ?? helm.chart));
  if (helm.chart.git) errors.push(...validateGit(helm.chart.git));
  // The release's namespace, written literally (a template is checked as it renders: template-rules).
  // With existingRelease it is where a fork's copy installs (the copy drops existingRelease).
  if (helm.namespace !== undefined && !hasTemplate(helm.namespace)) {
    const path = helmPath.child("namespace");
    errors.push(...installInputErrors("namespace", path, helm.namespace, helm.namespace, false));
  }
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
      const detail = existingReleaseTemplate.unrendered;
      errors.push(
        ...byRule("module.existing-release-template", [
          fieldError.invalid(helmPath.child("existingRelease").child(key), value, detail),
        ]),
      );
    }
    const namespace = helm.existingRelease.namespace;
    if (namespace !== undefined && !hasTemplate(namespace)) {
      for (const problem of dns1123LabelProblems(namespace).slice(0, 1)) {
        const detail = `${problem} (the operator looks the release up in this namespace, which cannot exist)`;
        errors.push(
          ...byRule("module.existing-release-namespace", [
            fieldError.invalid(helmPath.child("existingRelease").child("namespace"), namespace, detail),
          ]),
        );
      }
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

function validateChartSource(chart: ChartSource | Record<string, unknown>): FieldErrorList {
  const chartPath = helmPath.child("chart");
  const set = chartSources.filter((source) => isSet(chart as Record<string, unknown>, source));
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
 * provided"), and `git clone --branch <revision>` (an empty revision fails). A repo or revision with a
 * template is rendered first: template-rules checks what it renders.
 */
function validateGit(git: ChartGit): FieldErrorList {
  const errors: FieldErrorList = [];
  if (!hasTemplate(git.repo))
    errors.push(...installInputErrors("git.repo", gitPath.child("repo"), git.repo, git.repo, false));
  if (git.revision !== undefined && !hasTemplate(git.revision)) {
    errors.push(
      ...installInputErrors("git.revision", gitPath.child("revision"), git.revision, git.revision, false),
    );
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
