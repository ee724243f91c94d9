import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import type { FieldPath } from "../../base/field-path.js";
import { celString, present } from "../../cel/policy-cel.js";
import { goUrlParseError } from "../../go/net-url/parse.js";
import { dns1123LabelFormat, dns1123LabelProblems } from "../../validation/names.js";

const install = "forkspacer/forkspacer v0.1.24 pkg/manager/helm.go, ModuleHelmManager.Install";
const helmNamespace = "object.spec.helm.namespace";
/** Why these stay the webhook's: they judge what a template renders, which is Go's text/template's. */
const rendered = "what a template renders decides it: Go's text/template is beyond CEL";

/**
 * What the operator's install does with spec.helm's fields once they are rendered (pkg/manager/helm.go,
 * pkg/services/helm.go): checked on a literal value (spec-rules) and on what a template certainly
 * renders (template-rules), so that `{{ .config.repo }}` rendering an scp-form URL fails as a literal
 * one does.
 */
export const installInputRules = errorRules({
  "module.git-url": {
    summary: "a git chart's repo that Go's url.Parse refuses, as written or as rendered",
    realSystem: "the install fails when it clones the repository",
    upstream: `${install} (url.Parse)`,
    native: {
      by: "webhook",
      why: "Go's url.Parse: CEL has no parser that refuses exactly what it refuses",
      callWhen: present("object.spec.helm.chart.git"),
    },
  },
  "module.git-revision": {
    summary: "a git chart's revision that is empty, as written or as rendered",
    realSystem: "git clone --branch '' fails (Remote branch not found), and the install with it",
    upstream: `${install} (git clone --depth=1 --branch <revision>)`,
    native: { by: "webhook", why: rendered, callWhen: present("object.spec.helm.chart.git") },
  },
  "module.helm-namespace": {
    summary: "the Helm release's namespace (spec.helm.namespace, as rendered) that is not a DNS-1123 label",
    realSystem:
      "Helm creates the namespace first (CreateNamespace), which the API server refuses: the install fails",
    upstream:
      "forkspacer/forkspacer v0.1.24 pkg/services/helm.go, InstallFromRepository/InstallFromLocal (CreateNamespace)",
    native: {
      by: "webhook",
      why: rendered,
      // The CRD defaults spec.helm.namespace, so presence says nothing: the webhook is called for a value
      // installInputErrors would refuse (a template is called for by the template rules' condition).
      callWhen: `${present(helmNamespace)} && !(${helmNamespace} == '' || (${helmNamespace}.size() <= 63 && ${helmNamespace}.matches(${celString(`^${dns1123LabelFormat}$`)})))`,
    },
  },
  "module.chart-repo": {
    summary: "a repo chart's URL or chart name that renders empty (a template rendering null or nothing)",
    realSystem:
      "with no URL Helm looks for a local chart of that name, with no name it finds none: the install fails",
    upstream: "forkspacer/forkspacer v0.1.24 pkg/services/helm.go, InstallFromRepository (LocateChart)",
    // Only a rendered value is judged (the CRD's minLength refuses a literal empty one): the template
    // rules' condition calls the webhook for every templated field.
    native: { by: "webhook", why: rendered, callWhen: "false" },
  },
  "module.existing-release-namespace": {
    summary: "spec.helm.existingRelease.namespace that is not a DNS-1123 label",
    realSystem:
      "the adoption looks the release up in a namespace that cannot exist: it finds none, and the install fails",
    upstream:
      "forkspacer/forkspacer v0.1.24 internal/controller/module_operations.go, adoptExistingHelmRelease",
    native: {
      by: "webhook",
      why: "a DNS-1123 label test beside the adoption rules the webhook runs",
      callWhen: present("object.spec.helm.existingRelease"),
    },
  },
  "module.custom-image-whitespace": {
    summary: "a custom module's image with leading or trailing whitespace, as written or as rendered",
    realSystem:
      "the API server refuses the runner Pod (spec.containers[0].image: must not have leading or trailing whitespace): the install fails",
    upstream:
      "forkspacer/forkspacer v0.1.24 pkg/manager/custom.go (the runner Pod's image); kubernetes pkg/apis/core/validation/validation.go, validateContainerCommon",
    native: { by: "webhook", why: rendered, callWhen: present("object.spec.custom") },
  },
});

/** The fields whose rendered value the install reads, by their path in spec.helm and spec.custom. */
export type InstallInput =
  | "git.repo"
  | "git.revision"
  | "namespace"
  | "repo.url"
  | "repo.chart"
  | "custom.image";

const inputOf: Record<string, InstallInput> = {
  "spec.helm.chart.git.repo": "git.repo",
  "spec.helm.chart.git.revision": "git.revision",
  "spec.helm.namespace": "namespace",
  "spec.helm.chart.repo.url": "repo.url",
  "spec.helm.chart.repo.chart": "repo.chart",
  "spec.custom.image": "custom.image",
};

/**
 * Go's unicode.IsSpace at an end of the text: what strings.TrimSpace takes off, as the API server's Pod
 * validation compares (JavaScript's \s differs: it has U+FEFF, and lacks U+0085).
 */
const goSpaceAtEnd =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;

export const installInputAt = (path: FieldPath): InstallInput | undefined => inputOf[path.toString()];

/**
 * Why the install certainly fails on `value` at `path`, a field the install reads. With existingRelease
 * the release is adopted, not installed, but a fork of its Workspace installs a copy without it
 * (internal/controller/workspace_fork.go): these fields still decide that install. `rendered` says
 * the value came from a template.
 */
export function installInputErrors(
  input: InstallInput,
  path: FieldPath,
  value: string,
  shown: string,
  rendered: boolean,
): FieldErrorList {
  const as = rendered ? `renders ${JSON.stringify(value)}: ` : "";
  switch (input) {
    case "git.repo": {
      const problem = goUrlParseError(value);
      if (problem === undefined) return [];
      const detail = `${as}${problem} (the operator parses it with Go's url.Parse; use ssh://git@host/org/repo.git)`;
      return byRule("module.git-url", [fieldError.invalid(path, shown, detail)]);
    }
    case "git.revision":
      if (value !== "") return [];
      return byRule("module.git-revision", [
        fieldError.invalid(path, shown, `${as}git clone --branch '' finds no branch: name a branch or tag`),
      ]);
    case "namespace": {
      if (value === "") return [];
      const [problem] = dns1123LabelProblems(value);
      if (problem === undefined) return [];
      const detail = `${as}${problem} (Helm creates this namespace, and the API server refuses the name)`;
      return byRule("module.helm-namespace", [fieldError.invalid(path, shown, detail)]);
    }
    case "custom.image":
      // Blank, the image is no image at all: module.custom-image (or, rendered, the Pod's Required value).
      if (!goSpaceAtEnd.test(value) || (!rendered && value.trim() === "")) return [];
      return byRule("module.custom-image-whitespace", [
        fieldError.invalid(
          path,
          shown,
          `${as}must not have leading or trailing whitespace (the API server refuses the runner Pod with this image)`,
        ),
      ]);
    case "repo.url":
    case "repo.chart":
      if (value !== "") return [];
      return byRule("module.chart-repo", [
        fieldError.invalid(
          path,
          shown,
          `${as}Helm gets no ${input === "repo.url" ? "repository to fetch the chart from" : "chart name to look up"}`,
        ),
      ]);
  }
}
