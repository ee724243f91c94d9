import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, formatMessage, type PolicyValidation } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, celString, isUpdate, quoted } from "../../cel/policy-cel.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";

// The native policies' CEL. A name of the <moduleName>-<version> shape splits at its first "-" before a
// digit (a module name has no digits): spec.moduleName agrees when the name is it, "-", then a digit;
// spec.version when the name is a module name, "-", then it. The message's expected part is found with
// the Kubernetes regex library's find().
export const templateNameRe2 =
  "^[a-z]{3,}(-[a-z]{3,})*-(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)(-[a-zA-Z-][0-9a-zA-Z-]*)?$";
const name = "object.metadata.name";
const nameModule = `${name}.find('^[a-z]{3,}(-[a-z]{3,})*')`;
const agrees = {
  moduleName: (v: string) =>
    `${name}.startsWith(${v} + '-') && ${name}.substring(${v}.size() + 1).matches('^[0-9]')`,
  version: (v: string) =>
    `${name}.endsWith('-' + ${v}) && ${name}.substring(0, ${name}.size() - ${v}.size() - 1).matches('^[a-z]{3,}(-[a-z]{3,})*$')`,
};
const expected = {
  moduleName: nameModule,
  version: `${name}.substring(${nameModule}.size() + 1)`,
};

/** moduletemplate.name-matches-spec's wording, for its check and its policy alike. */
const nameMessages = {
  disagrees:
    "must be {expected}, as metadata.name {name} (<moduleName>-<version>) says: lifecycle-manager finds the template by that name",
} as const;

function nameAgrees(field: "moduleName" | "version"): PolicyValidation {
  const v = `object.spec.${field}`;
  const applies = `has(object.metadata.name) && ${name}.matches(${celString(templateNameRe2)}) && has(object.spec) && has(${v}) && ${v} != ''`;
  return {
    expression: `!(${applies}) || (${agrees[field](v)}) || (${isUpdate} && has(oldObject.spec) && has(oldObject.spec.${field}) && oldObject.spec.${field} == ${v})`,
    messageExpression: `'spec.${field}: Invalid value: ' + ${quoted(v)} + ': ' + ${celMessage(nameMessages.disagrees, { expected: quoted(expected[field]), name: quoted(name) })}`,
  };
}

/** lifecycle-manager finds a template by the name `<moduleName>-<version>`. */
export const nameRules = errorRules({
  "moduletemplate.name-matches-spec": {
    summary: "a name <moduleName>-<version> whose spec.moduleName or spec.version says otherwise",
    realSystem: "finds the template by name, then takes the version, data and manager from its spec",
    stricter: "it would install a mix of two versions",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/moduletemplateinfolookup/common.go:24 (the template named CreateModuleTemplateName(module, version)), pkg/templatelookup/regular.go:113 (the descriptor of spec.version), internal/remote/remote_catalog.go:228 (synced by spec.moduleName-spec.version)",
    messages: nameMessages,
    native: {
      by: "policy",
      policy: { validations: [nameAgrees("moduleName"), nameAgrees("version")] },
    },
  },
});

const specPath = FieldPath.root("spec");

// `<moduleName>-<version>` with Kyma's moduleName and version patterns: a module name is letters only,
// a version starts with a digit, so the split is unambiguous (`keda-1.2.0-rc1` is keda, 1.2.0-rc1).
const templateName =
  /^(?<moduleName>[a-z]{3,}(?:-[a-z]{3,})*)-(?<version>(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[a-zA-Z-][0-9a-zA-Z-]*)?)$/;

/** The module name and version a template's name spells, when it has the `<moduleName>-<version>` shape. */
export function nameParts(name: unknown): { moduleName: string; version: string } | undefined {
  if (typeof name !== "string") return undefined;
  const groups = templateName.exec(name)?.groups;
  return groups ? { moduleName: groups.moduleName ?? "", version: groups.version ?? "" } : undefined;
}

/**
 * A template named `<moduleName>-<version>` says which module and version it is: lifecycle-manager
 * finds it by that name, then takes the version from spec.version and the data from the spec, so a
 * spec that disagrees installs a mix of two versions (rule moduletemplate.name-matches-spec). A field
 * that is not set does not disagree (the warnings say what an unset version means).
 */
export function validateNameMatchesSpec(
  name: unknown,
  spec: Partial<ModuleTemplateSpec> | undefined,
): FieldErrorList {
  const parts = nameParts(name);
  if (!parts || !spec) return [];
  const errors: FieldErrorList = [];
  const disagrees = (field: "moduleName" | "version") => {
    const value = spec[field];
    if (!value || value === parts[field]) return;
    errors.push(
      fieldError.invalid(
        specPath.child(field),
        value,
        formatMessage(nameMessages.disagrees, {
          expected: JSON.stringify(parts[field]),
          name: JSON.stringify(name),
        }),
      ),
    );
  };
  disagrees("moduleName");
  disagrees("version");
  return byRule("moduletemplate.name-matches-spec", errors);
}
