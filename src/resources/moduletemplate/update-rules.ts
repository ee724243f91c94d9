import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, formatMessage } from "../../admission/rule-catalogue.js";
import { writeJson } from "../../base/exact-json.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, objectRule, quoted } from "../../cel/policy-cel.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";

/** A template's identity, on UPDATE. */
/** moduletemplate.immutable-identity's wording, for its check and its policy alike. */
const identityMessages = {
  immutable:
    "field is immutable (was {was}): a new version is a new ModuleTemplate, named <moduleName>-<version>",
} as const;

export const identityRules = errorRules({
  "moduletemplate.immutable-identity": {
    summary: "spec.version or spec.moduleName changed",
    realSystem: "installs a changed spec.version under the same name as that version",
    stricter: "a new version is a new template; a version changed in place installs a mix of two",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:113,128 (spec.version read on every reconcile; its former webhook compared descriptor versions)",
    transition: true,
    messages: identityMessages,
    native: {
      by: "policy",
      policy: {
        validations: (["moduleName", "version"] as const).map((field) => {
          // An unset field and an empty one are the same (Go clients write "").
          const value = (object: string) =>
            `(has(${object}.spec) && has(${object}.spec.${field}) ? ${object}.spec.${field} : '')`;
          return objectRule({
            ok: `${value("object")} == ${value("oldObject")}`,
            field: `spec.${field}`,
            detail: `'Invalid value: ' + ${quoted(value("object"))} + ': ' + ${celMessage(identityMessages.immutable, { was: quoted(value("oldObject")) })}`,
          });
        }),
      },
    },
  },
});

const specPath = FieldPath.root("spec");

/**
 * spec.version and spec.moduleName never change in place (rule moduletemplate.immutable-identity): a
 * new version is a new template, named `<moduleName>-<version>`, as lifecycle-manager looks them up. A
 * version changed in place leaves the template under its old name with a new version, and clusters get
 * a mix of the two. An unset field and an empty one are the same (Go clients write "").
 */
export function validateIdentityUpdate(
  oldSpec: ModuleTemplateSpec | undefined,
  spec: ModuleTemplateSpec | undefined,
): FieldErrorList {
  const errors: FieldErrorList = [];
  for (const field of ["moduleName", "version"] as const) {
    const before = oldSpec?.[field] ?? "";
    const after = spec?.[field] ?? "";
    if (before === after) continue;
    errors.push(
      fieldError.invalid(
        specPath.child(field),
        after,
        formatMessage(identityMessages.immutable, { was: writeJson(before) }),
      ),
    );
  }
  return byRule("moduletemplate.immutable-identity", errors);
}
