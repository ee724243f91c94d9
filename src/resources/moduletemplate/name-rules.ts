import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";

/** lifecycle-manager finds a template by the name `<moduleName>-<version>`. */
export const nameRules = errorRules({
  "moduletemplate.name-matches-spec": {
    summary: "a name <moduleName>-<version> whose spec.moduleName or spec.version says otherwise",
    realSystem: "finds the template by name, then takes the version, data and manager from its spec",
    stricter: "it would install a mix of two versions",
    upstream: "kyma-project/lifecycle-manager pkg/templatelookup/regular.go",
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
        `must be ${JSON.stringify(parts[field])}, as metadata.name ${JSON.stringify(name)} (<moduleName>-<version>) says: lifecycle-manager finds the template by that name`,
      ),
    );
  };
  disagrees("moduleName");
  disagrees("version");
  return byRule("moduletemplate.name-matches-spec", errors);
}
