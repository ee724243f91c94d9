import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { absoluteHttpUrlProblem } from "../../validation/urls.js";

const specPath = FieldPath.root("spec");

/**
 * Links in spec.info, spec.info.icons and spec.resources are absolute http(s) URLs (moduletemplate.link:
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
