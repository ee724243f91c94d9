import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ConfigItem } from "../../generated/module.js";
import { compileRe2 } from "../../regex/re2.js";
import { closestMatch } from "../../validation/suggest.js";
import { isEditable, typesOf } from "./config-items.js";
import { integerBounds, selectionRules } from "./config-schema-rules.js";

const valuesPath = FieldPath.root("spec").child("config");

/**
 * spec.config against the config schema, refusing whatever the operator would refuse at reconcile time:
 * undeclared keys, missing required keys (a default does not count), any value for a non-editable key,
 * and values of the wrong type or outside the item's constraints.
 */
export function validateConfigValues(items: ConfigItem[], values: Record<string, unknown>): FieldErrorList {
  const errors: FieldErrorList = [];
  const byAlias = new Map(items.map((item) => [item.alias, item]));
  for (const key of Object.keys(values)) {
    if (byAlias.has(key)) continue;
    const suggestion = closestMatch(key, [...byAlias.keys()]);
    const hint = suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : "";
    const declared =
      byAlias.size > 0
        ? `the config schema declares ${[...byAlias.keys()].join(", ")}`
        : "the Module declares no config";
    errors.push(
      fieldError.forbidden(valuesPath.child(key), `not declared in the config schema (${declared})${hint}`),
    );
  }
  const checked = new Set<string>();
  for (const item of items) {
    // An item without exactly one type, or a repeated alias, is a schema error reported on `config`;
    // judging values against it would only add noise.
    const types = typesOf(item);
    const spec = types.length === 1 && types[0] ? item[types[0]] : undefined;
    if (!spec || checked.has(item.alias)) continue;
    checked.add(item.alias);
    const path = valuesPath.child(item.alias);
    const present = Object.hasOwn(values, item.alias);
    if (!present) {
      if (spec.required)
        errors.push(fieldError.required(path, "required by the config schema, even with a default"));
      continue;
    }
    if (!isEditable(spec)) {
      errors.push(fieldError.forbidden(path, "not editable: the config schema sets editable: false"));
      continue;
    }
    errors.push(...valueRules(item, values[item.alias], path));
  }
  return errors;
}

function valueRules(item: ConfigItem, value: unknown, path: FieldPath): FieldErrorList {
  if (item.string) {
    if (typeof value !== "string") return [typeError(path, value, "string")];
    const regex = item.string.regex === undefined ? undefined : compileRe2(item.string.regex);
    if (regex && !("error" in regex) && !regex.test(value)) {
      return [
        fieldError.invalid(
          path,
          value,
          `must match the regular expression ${JSON.stringify(item.string.regex)}`,
        ),
      ];
    }
    return [];
  }
  if (item.integer) {
    if (typeof value !== "number") return [typeError(path, value, "integer")];
    if (!Number.isInteger(value)) return [fieldError.invalid(path, value, "must be a whole number")];
    return integerBounds(value, item.integer, path);
  }
  if (item.boolean) return typeof value === "boolean" ? [] : [typeError(path, value, "boolean")];
  if (item.option) {
    if (typeof value !== "string") return [typeError(path, value, "string")];
    const allowed = item.option.values ?? [];
    return allowed.includes(value) ? [] : [fieldError.notSupported(path, value, allowed)];
  }
  if (item.multipleOptions) {
    if (!Array.isArray(value)) return [typeError(path, value, "array")];
    const notStrings = value.flatMap((choice, i) =>
      typeof choice === "string" ? [] : [typeError(path.index(i), choice, "string")],
    );
    return notStrings.length > 0 ? notStrings : selectionRules(value as string[], item.multipleOptions, path);
  }
  return [];
}

function typeError(path: FieldPath, value: unknown, expected: string) {
  return fieldError.invalid(path, value, `must be of type ${expected}`);
}
