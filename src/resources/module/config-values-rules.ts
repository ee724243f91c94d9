import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import { limits } from "../../admission/limits.js";
import type { ConfigItem } from "../../generated/module.js";
import { compileAll, MatchBudget } from "../../regex/re2.js";
import { closestMatch, editDistance, maxSuggestChars } from "../../validation/suggest.js";
import { fitWarning } from "../../validation/warning.js";
import { isEditable, typesOf } from "./config-items.js";
import { integerBounds } from "./config-schema-rules.js";

const valuesPath = FieldPath.root("spec").child("config");

/** What the Module runs as: the operator treats undeclared spec.config keys differently for each. */
export type ModuleSource = "helm" | "custom" | undefined;

export interface ConfigValuesVerdict {
  errors: FieldErrorList;
  warnings: string[];
}

/**
 * spec.config against the config schema, as the operator's GetValidatedConfig judges it: a missing
 * required key (a default does not count), any value for a non-editable key, values of the wrong type
 * or outside the item's constraints, and every multipleOptions value (v0.1.24 refuses them all) deny.
 * Undeclared keys do not: the operator ignores them for helm Modules (a warning, with "did you mean")
 * and hands them to a custom Module's runner (a warning only when one is a typo of a declared alias).
 */
export function validateConfigValues(
  items: ConfigItem[],
  values: Record<string, unknown>,
  source: ModuleSource = "helm",
): ConfigValuesVerdict {
  return compileConfigValues(items)(values, source);
}

/** The same rules with what depends only on the config schema worked out once, for many Modules. */
export function compileConfigValues(
  items: ConfigItem[],
): (values: Record<string, unknown>, source: ModuleSource) => ConfigValuesVerdict {
  const aliases = [...new Set(items.map((item) => item.alias))];
  const declared = new Set(aliases);
  // Duplicate aliases: the operator validates both and keeps the later; each is judged here too.
  const patterns = compileAll(items.map((item) => item.string?.regex));
  const checks = items.flatMap((item, i) => {
    const types = typesOf(item);
    const spec = types[0] ? item[types[0]] : undefined;
    if (!spec) return [];
    return [
      {
        alias: item.alias,
        path: valuesPath.child(item.alias),
        required: spec.required === true,
        editable: isEditable(spec),
        rules: valueRules(item, patterns[i]),
      },
    ];
  });
  return (values, source) => {
    const verdict: ConfigValuesVerdict = { errors: [], warnings: [] };
    const budget = new MatchBudget();
    // Warnings only as many as the API server shows (it keeps 4 KiB of them): 9,000 undeclared keys
    // must not cost 9,000 did-you-mean searches.
    let undeclared = 0;
    for (const key of Object.keys(values)) {
      if (declared.has(key)) continue;
      if (++undeclared <= limits.listErrors) verdict.warnings.push(...undeclaredKey(key, aliases, source));
    }
    if (undeclared > limits.listErrors) {
      verdict.warnings.push(`spec.config: ${undeclared - limits.listErrors} more keys are not declared`);
    }
    for (const check of checks) {
      if (!Object.hasOwn(values, check.alias)) {
        if (check.required) {
          const detail = "required by the config schema (the operator refuses it even with a default)";
          verdict.errors.push(...byRule("module.config-required", [fieldError.required(check.path, detail)]));
        }
        continue;
      }
      if (!check.editable) {
        const detail =
          "not editable: the config schema sets editable: false (the operator refuses any value)";
        verdict.errors.push(
          ...byRule("module.config-not-editable", [fieldError.forbidden(check.path, detail)]),
        );
        continue;
      }
      verdict.errors.push(...check.rules(values[check.alias], check.path, budget));
    }
    return verdict;
  };
}

function undeclaredKey(key: string, aliases: string[], source: ModuleSource): string[] {
  const path = valuesPath.child(key);
  if (source === "custom") {
    // Only short names one character apart in length can be one edit apart: bounded work.
    const near = (alias: string) =>
      key.length <= maxSuggestChars &&
      Math.abs(alias.length - key.length) <= 1 &&
      editDistance(key, alias) === 1;
    const typo = aliases.find(near);
    return typo
      ? [
          fitWarning(
            `${path} is not declared, but passed to the runner; did you mean ${JSON.stringify(typo)}?`,
          ),
        ]
      : [];
  }
  const suggestion = closestMatch(key, aliases);
  const hint = suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : "";
  return [fitWarning(`${path} is not declared in the config schema: the operator ignores it${hint}`)];
}

type ValueRule = (value: unknown, path: FieldPath, budget: MatchBudget) => FieldErrorList;

/**
 * The checker for one item's values (the first type wins, as in the operator), with its regex compiled
 * once per config schema (a pattern that does not compile is a schema error; its values are not matched).
 */
function valueRules(item: ConfigItem, compiled: ReturnType<typeof compileAll>[number]): ValueRule {
  const rule = (id: string, errors: FieldErrorList) => byRule(id, errors);
  const integer = item.integer;
  if (integer) {
    return (value, path) => {
      if (typeof value !== "number") return rule("module.config-value", [typeError(path, value, "integer")]);
      if (!Number.isInteger(value)) {
        const detail = `must be a whole number (the operator would silently use ${Math.trunc(value)})`;
        return rule("module.config-whole-number", [fieldError.invalid(path, value, detail)]);
      }
      // The operator converts the JSON number with int(v): beyond int64 Go leaves the result undefined.
      if (value >= 2 ** 63 || value < -(2 ** 63)) {
        const detail =
          "must be within Go's int range, -2^63 to 2^63-1 (the operator's int() of it is undefined)";
        return rule("module.config-value", [fieldError.invalid(path, value, detail)]);
      }
      return rule("module.config-value", integerBounds(value, integer, path));
    };
  }
  if (item.boolean)
    return (value, path) =>
      typeof value === "boolean" ? [] : rule("module.config-value", [typeError(path, value, "boolean")]);
  if (item.string) {
    const pattern = item.string.regex;
    const regex = compiled && !("error" in compiled) ? compiled : undefined;
    return (value, path, budget) => {
      if (typeof value !== "string") return rule("module.config-value", [typeError(path, value, "string")]);
      const matched = regex ? budget.test(regex, value) : true;
      if (typeof matched === "object")
        return rule("module.config-value", [fieldError.invalid(path, value, matched.refused)]);
      if (!matched) {
        const detail = `must match the regular expression ${JSON.stringify(pattern)}`;
        return rule("module.config-value", [fieldError.invalid(path, value, detail)]);
      }
      return [];
    };
  }
  const option = item.option;
  if (option) {
    const allowed = option.values ?? [];
    return (value, path) => {
      if (typeof value !== "string") return rule("module.config-value", [typeError(path, value, "string")]);
      return allowed.includes(value)
        ? []
        : rule("module.config-value", [fieldError.notSupported(path, value, allowed)]);
    };
  }
  if (item.multipleOptions) {
    return (_value, path) =>
      rule("module.multiple-options-value", [
        fieldError.forbidden(
          path,
          'the Forkspacer operator v0.1.24 refuses every multipleOptions value ("input is not an string array"); omit it to use the default',
        ),
      ]);
  }
  return () => [];
}

function typeError(path: FieldPath, value: unknown, expected: string) {
  return fieldError.invalid(path, value, `must be of type ${expected}`);
}
