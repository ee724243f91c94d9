import { type FieldError, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import { limits } from "../../admission/limits.js";
import type {
  ConfigItem,
  IntegerConfig,
  MultipleOptionsConfig,
  OptionConfig,
  StringConfig,
} from "../../generated/module.js";
import { compileAll, MatchBudget } from "../../regex/re2.js";
import { configTypes, typesOf } from "./config-items.js";

const configPath = FieldPath.root("config");

/**
 * The config schema itself (top-level `config`): each item has a unique alias and exactly one type, and
 * its constraints agree with each other and with its default, so that the default is a value the
 * operator would accept.
 */
export function validateConfigSchema(items: ConfigItem[]): FieldErrorList {
  const errors: FieldErrorList = [];
  const seen = new Set<string>();
  const patterns = compileAll(items.map((item) => item.string?.regex));
  const budget = new MatchBudget();
  items.forEach((item, i) => {
    const itemPath = configPath.index(i);
    if (item.alias.trim() === "")
      errors.push(fieldError.required(itemPath.child("alias"), "must be non-empty"));
    else if (seen.has(item.alias)) errors.push(fieldError.duplicate(itemPath.child("alias"), item.alias));
    seen.add(item.alias);
    const types = typesOf(item);
    if (types.length === 0) {
      errors.push(fieldError.required(itemPath, `exactly one of ${configTypes.join(", ")} must be set`));
    }
    for (const extra of types.slice(1)) {
      errors.push(
        fieldError.forbidden(itemPath.child(extra), `may not be set together with ${itemPath}.${types[0]}`),
      );
    }
    const first = types[0];
    const typeSpec = first && item[first];
    if (first && typeSpec?.required && typeSpec.editable === false) {
      const detail = "a required item must be editable: no Module could both set and omit it";
      errors.push(fieldError.invalid(itemPath.child(first).child("editable"), false, detail));
    }
    if (item.string) errors.push(...stringRules(item.string, patterns[i], budget, itemPath.child("string")));
    if (item.integer) errors.push(...integerRules(item.integer, itemPath.child("integer")));
    if (item.option) errors.push(...optionRules(item.option, itemPath.child("option")));
    if (item.multipleOptions)
      errors.push(...multipleOptionsRules(item.multipleOptions, itemPath.child("multipleOptions")));
  });
  return errors;
}

function stringRules(
  spec: StringConfig,
  regex: ReturnType<typeof compileAll>[number],
  budget: MatchBudget,
  path: FieldPath,
): FieldErrorList {
  if (spec.regex === undefined || regex === undefined) return [];
  if ("error" in regex)
    return [
      fieldError.invalid(
        path.child("regex"),
        spec.regex,
        regex.overLimit ? regex.error : `invalid RE2 syntax: ${regex.error}`,
      ),
    ];
  if (spec.default === undefined) return [];
  const matched = budget.test(regex, spec.default);
  if (typeof matched === "object")
    return [fieldError.invalid(path.child("default"), spec.default, matched.refused)];
  if (!matched) {
    return [
      fieldError.invalid(
        path.child("default"),
        spec.default,
        `must match the regular expression ${JSON.stringify(spec.regex)}`,
      ),
    ];
  }
  return [];
}

function integerRules(spec: IntegerConfig, path: FieldPath): FieldErrorList {
  const errors = minNotAboveMax(spec, path);
  if (spec.default !== undefined) errors.push(...integerBounds(spec.default, spec, path.child("default")));
  return errors;
}

function optionRules(spec: OptionConfig, path: FieldPath): FieldErrorList {
  const values = spec.values ?? [];
  const errors = valuesRules(values, path);
  if (spec.default !== undefined && !values.includes(spec.default)) {
    errors.push(fieldError.notSupported(path.child("default"), spec.default, values));
  }
  return errors;
}

function multipleOptionsRules(spec: MultipleOptionsConfig, path: FieldPath): FieldErrorList {
  const values = spec.values ?? [];
  const errors = [...valuesRules(values, path), ...minNotAboveMax(spec, path)];
  if (spec.default !== undefined) errors.push(...selectionRules(spec.default, spec, path.child("default")));
  return errors;
}

function valuesRules(values: string[], path: FieldPath): FieldErrorList {
  if (values.length === 0)
    return [fieldError.required(path.child("values"), "at least one value must be listed")];
  return duplicates(values, path.child("values"));
}

function minNotAboveMax(spec: { min?: number; max?: number }, path: FieldPath): FieldErrorList {
  if (spec.min === undefined || spec.max === undefined || spec.min <= spec.max) return [];
  return [fieldError.invalid(path.child("min"), spec.min, `must be less than or equal to max (${spec.max})`)];
}

/** A value of an integer item against the item's min and max; shared with the spec.config rules. */
export function integerBounds(value: number, spec: IntegerConfig, path: FieldPath): FieldErrorList {
  if (spec.min !== undefined && value < spec.min) {
    return [fieldError.invalid(path, value, `must be greater than or equal to ${spec.min}`)];
  }
  if (spec.max !== undefined && value > spec.max) {
    return [fieldError.invalid(path, value, `must be less than or equal to ${spec.max}`)];
  }
  return [];
}

/** A selection of a multipleOptions item: known values, no repeats, a count within min and max. */
export function selectionRules(
  selection: string[],
  spec: MultipleOptionsConfig,
  path: FieldPath,
): FieldErrorList {
  const values = spec.values ?? [];
  const known = new Set(values);
  const errors: FieldErrorList = [];
  let more = 0;
  selection.forEach((choice, i) => {
    if (known.has(choice)) return;
    if (errors.length < limits.listErrors)
      errors.push(fieldError.notSupported(path.index(i), choice, values));
    else more++;
  });
  if (more > 0) errors.push(moreItems(path, more, "not among the supported values"));
  errors.push(...duplicates(selection, path));
  if (spec.min !== undefined && selection.length < spec.min) {
    errors.push(fieldError.invalid(path, selection, `must have at least ${spec.min} items`));
  }
  if (spec.max !== undefined && selection.length > spec.max) {
    errors.push(fieldError.tooMany(path, selection.length, spec.max));
  }
  return errors;
}

function duplicates(list: string[], path: FieldPath): FieldErrorList {
  const seen = new Set<string>();
  const errors: FieldErrorList = [];
  let more = 0;
  list.forEach((value, i) => {
    if (seen.has(value)) {
      if (errors.length < limits.listErrors) errors.push(fieldError.duplicate(path.index(i), value));
      else more++;
    }
    seen.add(value);
  });
  if (more > 0) errors.push(moreItems(path, more, "duplicates"));
  return errors;
}

/**
 * The one error that stands for the items of a list past the first `limits.listErrors` errors: a
 * million wrong items must not cost a million errors.
 */
export function moreItems(path: FieldPath, count: number, what: string): FieldError {
  return { type: "invalid", field: path.toString(), detail: `${count} more items are ${what}` };
}
