import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { absoluteHttpUrlProblem } from "../../validation/urls.js";

/** Links shown and fetched from `spec.info` and `spec.resources`, and their names. */
export const linkRules = errorRules({
  "moduletemplate.link": {
    summary: "a link that is not an absolute http(s) or oci URL",
    realSystem: "shows and fetches the links; its CRD has format: uri on resource links only",
    stricter: "a relative path has nothing to resolve against",
    upstream: "kyma-project/lifecycle-manager api/v1beta2/moduletemplate_types.go",
  },
  "moduletemplate.unique-name": {
    summary: "a name repeated in spec.resources or spec.info.icons",
    realSystem: "keeps them as maps keyed by name: the API server refuses duplicates",
    upstream: "kyma-project/lifecycle-manager api/v1beta2/moduletemplate_types.go (listType map)",
  },
});

const specPath = FieldPath.root("spec");

/**
 * Links in spec.info, spec.info.icons and spec.resources are absolute http(s) or oci URLs (moduletemplate.link:
 * stricter than Kyma's CRD, whose `format: uri` takes `/path` and `ftp://`, because the lifecycle
 * manager's UIs fetch or open them), and names are unique within icons and resources
 * (moduletemplate.unique-name: both are maps keyed by name, which the API server enforces on its own).
 */
export function validateLinks(spec: Partial<ModuleTemplateSpec>): FieldErrorList {
  const errors: FieldErrorList = [];
  const infoPath = specPath.child("info");
  if (spec.info) {
    errors.push(...linkErrors(spec.info.repository, infoPath.child("repository")));
    errors.push(...linkErrors(spec.info.documentation, infoPath.child("documentation")));
    errors.push(...namedLinkErrors(spec.info.icons ?? [], infoPath.child("icons")));
  }
  errors.push(...namedLinkErrors(spec.resources ?? [], specPath.child("resources")));
  return errors;
}

function namedLinkErrors(entries: { name: string; link: string }[], path: FieldPath): FieldErrorList {
  const errors: FieldErrorList = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.name)) {
      errors.push(
        ...byRule("moduletemplate.unique-name", [
          fieldError.duplicate(path.index(i).child("name"), entry.name),
        ]),
      );
    }
    seen.add(entry.name);
    errors.push(...linkErrors(entry.link, path.index(i).child("link")));
  });
  return errors;
}

function linkErrors(link: string, path: FieldPath): FieldErrorList {
  const problem = absoluteHttpUrlProblem(link);
  return problem ? byRule("moduletemplate.link", [fieldError.invalid(path, link, problem)]) : [];
}
