import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import { limits } from "../../admission/limits.js";
import type { ConfigItem } from "../../generated/module.js";
import { compileAll, MatchBudget } from "../../regex/re2.js";
import { closestMatch } from "../../validation/suggest.js";
import { isEditable, typesOf } from "./config-items.js";
import { integerBounds, moreItems, selectionRules } from "./config-schema-rules.js";

const valuesPath = FieldPath.root("spec").child("config");

/**
 * spec.config against the config schema, refusing whatever the operator would refuse at reconcile time:
 * undeclared keys, missing required keys (a default does not count), any value for a non-editable key,
 * and values of the wrong type or outside the item's constraints.
 */
export function validateConfigValues(items: ConfigItem[], values: Record<string, unknown>): FieldErrorList {
  return compileConfigValues(items)(values);
}

/**
 * The same rules with everything that depends only on the config schema worked out once: the checker
 * for one schema, to apply to many Modules' values.
 */
export function compileConfigValues(
  items: ConfigItem[],
): (values: Record<string, unknown>) => FieldErrorList {
  const byAlias = new Map(items.map((item) => [item.alias, item]));
  const aliases = [...byAlias.keys()];
  const declared =
    byAlias.size > 0 ? `the config schema declares ${aliases.join(", ")}` : "the Module declares no config";
  const seen = new Set<string>();
  const patterns = compileAll(items.map((item) => item.string?.regex));
  const checks = items.flatMap((item, i) => {
    // An item without exactly one type, or a repeated alias, is a schema error reported on `config`;
    // judging values against it would only add noise.
    const types = typesOf(item);
    const spec = types.length === 1 && types[0] ? item[types[0]] : undefined;
    if (!spec || seen.has(item.alias)) return [];
    seen.add(item.alias);
    const path = valuesPath.child(item.alias);
    return [
      {
        alias: item.alias,
        path,
        required: spec.required,
        editable: isEditable(spec),
        rules: valueRules(item, patterns[i]),
      },
    ];
  });
  return (values) => {
    const errors: FieldErrorList = [];
    const budget = new MatchBudget();
    for (const key of Object.keys(values)) {
      if (byAlias.has(key)) continue;
      // Suggestions only where a denial shows them: its first causes.
      const suggestion = errors.length < limits.causes ? closestMatch(key, aliases) : undefined;
      const hint = suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : "";
      errors.push(
        fieldError.forbidden(valuesPath.child(key), `not declared in the config schema (${declared})${hint}`),
      );
    }
    for (const check of checks) {
      if (!Object.hasOwn(values, check.alias)) {
        if (check.required)
          errors.push(fieldError.required(check.path, "required by the config schema, even with a default"));
        continue;
      }
      if (!check.editable) {
        errors.push(fieldError.forbidden(check.path, "not editable: the config schema sets editable: false"));
        continue;
      }
      errors.push(...check.rules(values[check.alias], check.path, budget));
    }
    return errors;
  };
}

type ValueRule = (value: unknown, path: FieldPath, budget: MatchBudget) => FieldErrorList;

/**
 * The checker for one item's values, with its regex compiled once per config schema (a pattern that
 * does not compile is a schema error; its values are not matched).
 */
function valueRules(item: ConfigItem, compiled: ReturnType<typeof compileAll>[number]): ValueRule {
  if (item.string) {
    const pattern = item.string.regex;
    const regex = compiled && !("error" in compiled) ? compiled : undefined;
    return (value, path, budget) => {
      if (typeof value !== "string") return [typeError(path, value, "string")];
      const matched = regex ? budget.test(regex, value) : true;
      if (typeof matched === "object") return [fieldError.invalid(path, value, matched.refused)];
      if (!matched) {
        return [
          fieldError.invalid(path, value, `must match the regular expression ${JSON.stringify(pattern)}`),
        ];
      }
      return [];
    };
  }
  const integer = item.integer;
  if (integer) {
    return (value, path) => {
      if (typeof value !== "number") return [typeError(path, value, "integer")];
      if (!Number.isInteger(value)) return [fieldError.invalid(path, value, "must be a whole number")];
      return integerBounds(value, integer, path);
    };
  }
  if (item.boolean)
    return (value, path) => (typeof value === "boolean" ? [] : [typeError(path, value, "boolean")]);
  const option = item.option;
  if (option) {
    const allowed = option.values ?? [];
    return (value, path) => {
      if (typeof value !== "string") return [typeError(path, value, "string")];
      return allowed.includes(value) ? [] : [fieldError.notSupported(path, value, allowed)];
    };
  }
  const multipleOptions = item.multipleOptions;
  if (multipleOptions) {
    return (value, path) => {
      if (!Array.isArray(value)) return [typeError(path, value, "array")];
      // One error per item up to what a denial shows, then one for the rest: a million wrong items
      // must not cost a million errors.
      const notStrings: FieldErrorList = [];
      let more = 0;
      value.forEach((choice, i) => {
        if (typeof choice === "string") return;
        if (notStrings.length < limits.listErrors)
          notStrings.push(typeError(path.index(i), choice, "string"));
        else more++;
      });
      if (more > 0) notStrings.push(moreItems(path, more, "not of type string"));
      return notStrings.length > 0 ? notStrings : selectionRules(value as string[], multipleOptions, path);
    };
  }
  return () => [];
}

function typeError(path: FieldPath, value: unknown, expected: string) {
  return fieldError.invalid(path, value, `must be of type ${expected}`);
}
