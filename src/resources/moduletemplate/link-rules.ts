import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { absoluteHttpUrlProblem } from "../../validation/urls.js";

const specPath = FieldPath.root("spec");

/**
 * Links in spec.info, spec.info.icons and spec.resources are absolute http(s) URLs, and names are unique
 * within icons and resources (both are maps keyed by name: a repeated name would hide an entry).
 */
export function validateLinks(spec: ModuleTemplateSpec): FieldErrorList {
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
    if (seen.has(entry.name)) errors.push(fieldError.duplicate(path.index(i).child("name"), entry.name));
    seen.add(entry.name);
    errors.push(...linkErrors(entry.link, path.index(i).child("link")));
  });
  return errors;
}

function linkErrors(link: string, path: FieldPath): FieldErrorList {
  const problem = absoluteHttpUrlProblem(link);
  return problem ? [fieldError.invalid(path, link, problem)] : [];
}
