import { byRule, type FieldErrorList, fieldError, ListErrors } from "../../admission/field-errors.js";
import {
  errorRules,
  formatMessage,
  type PolicyValidation,
  warningRules,
} from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, celString, isUpdate, itemRule, present, quoted } from "../../cel/policy-cel.js";
import type {
  ConfigItem,
  IntegerConfig,
  MultipleOptionsConfig,
  OptionConfig,
  StringConfig,
} from "../../generated/module.js";
import { compileAll, MatchBudget } from "../../regex/re2.js";
import { configTypes, firstTypeCel, largeConfig, typesOf } from "./config-items.js";

const types = "forkspacer/forkspacer v0.1.24 api/v1/module_types.go";

/** The config schema rules' wording, for their checks below and their policies alike. */
const duplicateAlias = { duplicate: "Duplicate value: {alias}" } as const;
const configType = {
  untyped: "exactly one of {types} must be set (the operator refuses an item without a type)",
  twoTypes: "may not be set together with {first} (the operator would ignore it)",
} as const;
const requiredEditableMessages = {
  notEditable: "a required item must be editable: no Module could both set and omit it",
} as const;
const minMax = { minAboveMax: "must be less than or equal to max ({max})" } as const;
/** The policy's: CEL tests the constraints together; the check says which one fails. */
const configDefault = { broken: "breaks its own constraints (regex, min, max or values)" } as const;
const zeroDefault = { zero: "{shown} {why}: a Module that omits {alias} renders {shown}" } as const;

// The native policies' CEL (src/cel/policy-cel.ts): what each rule below finds, as the API server can test it.
const aliases = (list: string) => `${list}.map(c, c.alias)`;

/**
 * Every alias once. A repeated alias is named at its last item (the webhook names every later one); on
 * UPDATE it is spared where its first and last items and its count are as before (the webhook spares
 * a repeat at an index whose alias the update left as it was).
 */
const duplicateAliases: PolicyValidation = {
  expression: `!has(object.config) || object.config.all(item, ${aliases("object.config")}.indexOf(item.alias) == ${aliases("object.config")}.lastIndexOf(item.alias) || (${isUpdate} && has(oldObject.config) && ${aliases("oldObject.config")}.indexOf(item.alias) == ${aliases("object.config")}.indexOf(item.alias) && ${aliases("oldObject.config")}.lastIndexOf(item.alias) == ${aliases("object.config")}.lastIndexOf(item.alias) && ${aliases("oldObject.config")}.filter(a, a == item.alias).size() == ${aliases("object.config")}.filter(a, a == item.alias).size()))`,
  messageExpression: `object.config.filter(item, ${aliases("object.config")}.indexOf(item.alias) != ${aliases("object.config")}.lastIndexOf(item.alias)).map(item, 'config[' + string(${aliases("object.config")}.lastIndexOf(item.alias)) + '].alias: ' + ${celMessage(duplicateAlias.duplicate, { alias: quoted("item.alias") })})[0]`,
};

/** CEL: the names of the types an item sets, in the webhook's order (the first is its type). */
const typeNames = (item: string) =>
  `[${configTypes.map((type) => `has(${item}.${type}) ? '${type}' : ''`).join(", ")}].filter(t, t != '')`;

/** Exactly one type; the message names the item when it has none, else the first type too many. */
const oneType = itemRule({
  list: "object.config",
  field: "config",
  ok: (item) => `${typeNames(item)}.size() == 1`,
  below: (item) => `(${typeNames(item)}.size() == 0 ? '' : '.' + ${typeNames(item)}[1])`,
  detail: (item) =>
    `(${typeNames(item)}.size() == 0 ? 'Required value: ' + ${celMessage(configType.untyped, { types: celString(configTypes.join(", ")) })} : 'Forbidden: ' + ${celMessage(configType.twoTypes, { first: `'config[' + string(object.config.indexOf(${item})) + '].' + ${typeNames(item)}[0]` })})`,
});

/** The first type's spec not both required and not editable. */
const requiredEditable = itemRule({
  list: "object.config",
  field: "config",
  ok: (item) =>
    `!${firstTypeCel(item, (spec) => `(has(${spec}.required) && ${spec}.required && has(${spec}.editable) && !${spec}.editable)`, "false")}`,
  below: (item) => `'.' + ${typeNames(item)}[0] + '.editable'`,
  detail: () => `'Invalid value: false: ' + ${celMessage(requiredEditableMessages.notEditable)}`,
});

/** An integer's or a multipleOptions' min not above its max. */
const minNotAboveMaxCel = (type: "integer" | "multipleOptions") =>
  itemRule({
    list: "object.config",
    field: "config",
    ok: (item) =>
      `!has(${item}.${type}) || !has(${item}.${type}.min) || !has(${item}.${type}.max) || ${item}.${type}.min <= ${item}.${type}.max`,
    below: () => `'.${type}.min'`,
    detail: (item) =>
      `'Invalid value: ' + string(${item}.${type}.min) + ': ' + ${celMessage(minMax.minAboveMax, { max: `string(${item}.${type}.max)` })}`,
    spare: (item, old) => `has(${old}.${type}) && ${old}.${type} == ${item}.${type}`,
  });

/**
 * Defaults against their item's constraints: an explicit default (`zero` false: module.config-default)
 * or the zero value ("", 0, [] or none: module.config-schema-warning). A regex that does not compile
 * makes `matches` fail to evaluate, which the policy admits (the webhook leaves it to module.config-regex).
 */
function defaultChecks(zero: boolean): PolicyValidation[] {
  const check = (
    type: keyof typeof zeroValue,
    ok: (spec: string, value: string) => string,
    shown: (value: string) => string,
  ) =>
    itemRule({
      list: "object.config",
      field: "config",
      ok: (item) => {
        const spec = `${item}.${type}`;
        const given = `${spec}.default`;
        const isZero = `(!has(${given}) || ${zeroValue[type].test(given)})`;
        // The zero value stands for a default not given, as the webhook reads it (spec.default ?? "").
        const value = zero ? zeroValue[type].literal : given;
        return `!has(${spec}) || ${zero ? `!${isZero}` : isZero} || (${ok(spec, value)})`;
      },
      below: () => `'.${type}.default'`,
      detail: (item) =>
        zero
          ? celMessage(zeroDefault.zero, {
              shown: shown(zeroValue[type].literal),
              why: "'breaks its own constraints'",
              alias: quoted(`${item}.alias`),
            })
          : `'Invalid value: ' + ${shown(`${item}.${type}.default`)} + ': ' + ${celMessage(configDefault.broken)}`,
      spare: zero ? false : (item, old) => `has(${old}.${type}) && ${old}.${type} == ${item}.${type}`,
    });
  return [
    check("string", (spec, value) => `!has(${spec}.regex) || ${value}.matches(${spec}.regex)`, quoted),
    check(
      "integer",
      (spec, value) =>
        `(!has(${spec}.min) || ${value} >= ${spec}.min) && (!has(${spec}.max) || ${value} <= ${spec}.max)`,
      (value) => `string(${value})`,
    ),
    check("option", (spec, value) => `has(${spec}.values) && ${value} in ${spec}.values`, quoted),
    check(
      "multipleOptions",
      (spec, value) =>
        `${value}.all(d, has(${spec}.values) && d in ${spec}.values) && ${value}.all(d, ${value}.indexOf(d) == ${value}.lastIndexOf(d)) && (!has(${spec}.min) || ${value}.size() >= ${spec}.min) && (!has(${spec}.max) || ${value}.size() <= ${spec}.max)`,
      () => "'[]'",
    ),
  ];
}

/** Each type's zero value, what the operator's CRD writes for "no default": its CEL and a test for it. */
const zeroValue = {
  string: { literal: "''", test: (value: string) => `${value} == ''` },
  integer: { literal: "0", test: (value: string) => `${value} == 0` },
  option: { literal: "''", test: (value: string) => `${value} == ''` },
  multipleOptions: { literal: "[]", test: (value: string) => `${value}.size() == 0` },
};

/** The config schema's self-checks (`config[]`): wrong for every Module that uses the item. */
export const configSchemaRules = [
  ...errorRules({
    "module.config-duplicate-alias": {
      summary: "two config items share one alias",
      realSystem: "validates a value against both items, and keeps the later",
      stricter: "one of the two items is dead, and which one is silent",
      upstream: `${types}, GetValidatedConfig`,
      messages: duplicateAlias,
      native: { by: "policy", policy: { validations: [duplicateAliases], largeWhen: largeConfig } },
    },
    "module.config-type": {
      summary: "a config item with no type, or with more than one",
      realSystem:
        "refuses every Module with an item without a type (unknown config type); with several, the first of integer, boolean, string, option, multipleOptions wins",
      stricter: "several types: the operator runs the first and ignores the others silently",
      upstream: `${types}, ConfigItem; GetValidatedConfig`,
      messages: configType,
      native: { by: "policy", policy: { validations: [oneType], largeWhen: largeConfig } },
    },
    "module.config-integer-range": {
      summary: "an integer item's default, min or max (or a multipleOptions min or max) beyond Go's int",
      realSystem:
        "its webhook cannot decode the Module into its Go types (json: cannot unmarshal number into Go struct field of type int) and refuses it",
      upstream: `${types}, ConfigItemSpecInteger and ConfigItemSpecMultipleOptions (int fields); controller-runtime's decoder`,
      native: {
        by: "webhook",
        why: "a JSON number beyond int64 reaches CEL as a double that cannot be told from the range's ends",
        // A number that fits int64 reaches CEL as an int: only another type can be beyond it.
        callWhen: `${present("object.config")} && object.config.exists(item, ${notInt("integer", ["default", "min", "max"])} || ${notInt("multipleOptions", ["min", "max"])})`,
      },
    },
    "module.config-required-editable": {
      summary: "an item both required and not editable",
      realSystem:
        "refuses the Module that declares it: omitted, a value is required; set, the item is not editable",
      upstream: `${types}, GetValidatedConfig, each config type's Validate`,
      messages: requiredEditableMessages,
      native: { by: "policy", policy: { validations: [requiredEditable], largeWhen: largeConfig } },
    },
    "module.config-regex": {
      summary: "a string item's regex that Go's regexp (RE2) does not compile",
      realSystem: "fails only when a value is given (the regex is compiled then)",
      stricter: "every Module that sets the item would fail",
      upstream: `${types}, ConfigItemSpecString.Validate (regexp.MatchString)`,
      native: {
        by: "webhook",
        why: "whether a pattern compiles as RE2: CEL has no such test (a failed matches() is an evaluation error)",
        callWhen: `${present("object.config")} && object.config.exists(item, has(item.string) && has(item.string.regex))`,
      },
    },
    "module.config-min-max": {
      summary: "an integer or multipleOptions item whose min is above its max",
      realSystem: "accepts it, and runs a Module that gives no value",
      stricter: "no value can ever be valid",
      upstream: `${types}, ConfigItemSpecInteger.Validate, ConfigItemSpecMultipleOptions.Validate`,
      messages: minMax,
      native: {
        by: "policy",
        policy: {
          validations: [minNotAboveMaxCel("integer"), minNotAboveMaxCel("multipleOptions")],
          largeWhen: largeConfig,
        },
      },
    },
    "module.config-default": {
      summary: "an explicit non-zero default outside its item's constraints",
      realSystem: "never checks defaults",
      stricter: "the default is what renders when a Module omits the value",
      upstream: `${types}, GetValidatedConfig`,
      messages: configDefault,
      native: {
        by: "policy",
        policy: {
          validations: defaultChecks(false),
          errorsAdmit: true,
          largeWhen: largeConfig,
          coarserMessage:
            "CEL tests a default against its item's constraints together; the webhook names the one it breaks",
        },
      },
    },
  }),
  ...warningRules({
    "module.config-schema-warning": {
      summary: 'a zero-value default ("", 0, []) that breaks its own item\'s constraints',
      realSystem:
        "its CRD writes the zero value for 'no default' (an absent list is empty), and renders it when a Module omits the value",
      upstream: "forkspacer/forkspacer v0.1.24 crds/batch.forkspacer.com_modules.yaml (config item defaults)",
      messages: zeroDefault,
      native: {
        by: "policy",
        policy: {
          validations: defaultChecks(true),
          errorsAdmit: true,
          largeWhen: largeConfig,
          coarserMessage:
            "CEL tests a zero default against its item's constraints together; the webhook says which one it breaks ({why})",
        },
      },
    },
  }),
];

const configPath = FieldPath.root("config");

/** Findings on the config schema itself: errors deny, warnings are shown. */
export interface ConfigSchemaVerdict {
  errors: FieldErrorList;
  warnings: FieldWarning[];
}

/**
 * The config schema itself (top-level `config`). Denied: what the operator refuses (an item without a
 * type) and the self-checks this project adds on purpose (docs/forkspacer.md: rules stricter than the operator):
 * duplicate aliases, two types in one item, a regex RE2 does not compile, min > max, and an explicit
 * non-zero default that breaks its item's constraints. Required with editable false is denied too, but
 * is no stricter: `GetValidatedConfig` refuses every Module of such a schema (a value is required, and
 * not editable). A zero-value default (`""`, `0`, `[]`: what the operator's CRD writes for "no
 * default") is never denied;
 * when it breaks its item's constraints, a warning says what a Module that omits the value renders.
 */
export function validateConfigSchema(items: ConfigItem[]): ConfigSchemaVerdict {
  const verdict: ConfigSchemaVerdict = { errors: [], warnings: [] };
  const seen = new Set<string>();
  const patterns = compileAll(items.map((item) => item.string?.regex));
  const budget = new MatchBudget();
  items.forEach((item, i) => {
    const itemPath = configPath.index(i);
    if (seen.has(item.alias)) {
      verdict.errors.push(
        ...byRule("module.config-duplicate-alias", [
          fieldError.duplicate(itemPath.child("alias"), item.alias),
        ]),
      );
    }
    seen.add(item.alias);
    const types = typesOf(item);
    if (types.length === 0) {
      const detail = formatMessage(configType.untyped, { types: configTypes.join(", ") });
      verdict.errors.push(...byRule("module.config-type", [fieldError.required(itemPath, detail)]));
    }
    for (const extra of types.slice(1)) {
      const detail = formatMessage(configType.twoTypes, { first: `${itemPath}.${types[0]}` });
      verdict.errors.push(
        ...byRule("module.config-type", [fieldError.forbidden(itemPath.child(extra), detail)]),
      );
    }
    const first = types[0];
    const typeSpec = first && item[first];
    if (first && typeSpec?.required && typeSpec.editable === false) {
      const detail = requiredEditableMessages.notEditable;
      verdict.errors.push(
        ...byRule("module.config-required-editable", [
          fieldError.invalid(itemPath.child(first).child("editable"), false, detail),
        ]),
      );
    }
    const add = (found: ConfigSchemaVerdict) => {
      verdict.errors.push(...found.errors);
      verdict.warnings.push(...found.warnings);
    };
    for (const type of ["integer", "multipleOptions"] as const) {
      const spec = item[type] as Record<string, unknown> | undefined;
      if (spec)
        verdict.errors.push(...byRule("module.config-integer-range", intFields(spec, itemPath.child(type))));
    }
    if (item.string) add(stringRules(item.string, patterns[i], budget, itemPath.child("string"), item.alias));
    if (item.integer) add(integerRules(item.integer, itemPath.child("integer"), item.alias));
    if (item.option) add(optionRules(item.option, itemPath.child("option"), item.alias));
    if (item.multipleOptions)
      add(multipleOptionsRules(item.multipleOptions, itemPath.child("multipleOptions"), item.alias));
  });
  return verdict;
}

/**
 * A default that breaks its item's constraints: a denial when it was written on purpose (non-zero), a
 * warning when it is the zero value the operator's CRD writes for "no default".
 */
function defaultVerdict(
  problems: FieldErrorList,
  zero: boolean,
  path: FieldPath,
  alias: string,
  shown: string,
): ConfigSchemaVerdict {
  if (problems.length === 0) return { errors: [], warnings: [] };
  if (!zero) return { errors: byRule("module.config-default", problems), warnings: [] };
  const [first] = problems;
  const why =
    first?.type === "notSupported" ? "is not one of the values" : (first?.detail ?? "breaks its constraints");
  return {
    errors: [],
    warnings: [
      warningAt(
        path,
        `${path} ${formatMessage(zeroDefault.zero, { shown, why, alias: JSON.stringify(alias) })}`,
      ),
    ],
  };
}

function stringRules(
  spec: StringConfig,
  regex: ReturnType<typeof compileAll>[number],
  budget: MatchBudget,
  path: FieldPath,
  alias: string,
): ConfigSchemaVerdict {
  if (spec.regex === undefined || regex === undefined) return { errors: [], warnings: [] };
  if ("error" in regex) {
    const detail = regex.overLimit ? regex.error : `invalid RE2 syntax: ${regex.error}`;
    return {
      errors: byRule("module.config-regex", [fieldError.invalid(path.child("regex"), spec.regex, detail)]),
      warnings: [],
    };
  }
  const value = spec.default ?? "";
  const matched = budget.test(regex, value);
  const problems =
    typeof matched === "object"
      ? [fieldError.invalid(path.child("default"), value, matched.refused)]
      : matched
        ? []
        : [
            fieldError.invalid(
              path.child("default"),
              value,
              `must match the regular expression ${JSON.stringify(spec.regex)}`,
            ),
          ];
  return defaultVerdict(problems, value === "", path.child("default"), alias, JSON.stringify(value));
}

function integerRules(spec: IntegerConfig, path: FieldPath, alias: string): ConfigSchemaVerdict {
  const errors = minNotAboveMax(spec, path);
  const value = spec.default ?? 0;
  const found = defaultVerdict(
    integerBounds(value, spec, path.child("default")),
    value === 0,
    path.child("default"),
    alias,
    String(value),
  );
  return { errors: [...errors, ...found.errors], warnings: found.warnings };
}

function optionRules(spec: OptionConfig, path: FieldPath, alias: string): ConfigSchemaVerdict {
  const values = spec.values ?? [];
  const value = spec.default ?? "";
  const problems = values.includes(value)
    ? []
    : [fieldError.notSupported(path.child("default"), value, values)];
  return defaultVerdict(problems, value === "", path.child("default"), alias, JSON.stringify(value));
}

function multipleOptionsRules(
  spec: MultipleOptionsConfig,
  path: FieldPath,
  alias: string,
): ConfigSchemaVerdict {
  const errors = minNotAboveMax(spec, path);
  const value = spec.default ?? [];
  const found = defaultVerdict(
    selectionRules(value, spec, path.child("default")),
    value.length === 0,
    path.child("default"),
    alias,
    "[]",
  );
  return { errors: [...errors, ...found.errors], warnings: found.warnings };
}

/**
 * The Go int fields of a config item (an integer's default, min and max; a multipleOptions' min and
 * max) whose number no int64 holds: a number read as a float64 beyond int64 (an int64 beyond 2^53-1
 * is read exactly, as a bigint, and fits).
 */
function intFields(spec: Record<string, unknown>, path: FieldPath): FieldErrorList {
  const errors: FieldErrorList = [];
  for (const key of ["default", "min", "max"]) {
    const value = spec[key];
    if (typeof value !== "number" || !beyondGoInt(value)) continue;
    errors.push(
      fieldError.invalid(
        path.child(key),
        value,
        "must fit a 64-bit integer: the operator cannot decode the Module (json: cannot unmarshal number into Go struct field of type int)",
      ),
    );
  }
  return errors;
}

/**
 * Whether a number (a float64: int64s beyond 2^53-1 are bigints) is beyond Go's int (int64) as the
 * operator receives it: the API server writes a float64 with its shortest digits, and -2^63 as a float
 * is written -9223372036854776000, which no int64 holds.
 */
export const beyondGoInt = (value: number): boolean => value >= 2 ** 63 || value <= -(2 ** 63);

/** An int64 as read: a number, or a bigint beyond 2^53-1 (the generated types say number). */
type Int64 = number | bigint;

function minNotAboveMax(spec: { min?: Int64; max?: Int64 }, path: FieldPath): FieldErrorList {
  if (spec.min === undefined || spec.max === undefined || spec.min <= spec.max) return [];
  return byRule("module.config-min-max", [
    fieldError.invalid(
      path.child("min"),
      spec.min,
      formatMessage(minMax.minAboveMax, { max: String(spec.max) }),
    ),
  ]);
}

/** A value of an integer item against the item's min and max; shared with the spec.config rules. */
export function integerBounds(value: Int64, spec: IntegerConfig, path: FieldPath): FieldErrorList {
  // Compared exactly: JavaScript compares a bigint with a number by their values.
  const { min, max } = spec as { min?: Int64; max?: Int64 };
  if (min !== undefined && value < min) {
    return [fieldError.invalid(path, value, `must be greater than or equal to ${min}`)];
  }
  if (max !== undefined && value > max) {
    return [fieldError.invalid(path, value, `must be less than or equal to ${max}`)];
  }
  return [];
}

/** A multipleOptions default: known values, no repeats, a count within min and max; bounded reports. */
function selectionRules(selection: string[], spec: MultipleOptionsConfig, path: FieldPath): FieldErrorList {
  const values = spec.values ?? [];
  const known = new Set(values);
  const unknown = new ListErrors(path, "not among the supported values", [], (i, choice: string) =>
    fieldError.notSupported(path.index(i), choice, values),
  );
  selection.forEach((choice, i) => {
    if (!known.has(choice)) unknown.add(i, choice);
  });
  const errors: FieldErrorList = [...unknown.errors()];
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
  const repeated = new ListErrors(
    path,
    "duplicates",
    [],
    (i, value: string) => fieldError.duplicate(path.index(i), value),
    { byFinding: true },
  );
  list.forEach((value, i) => {
    if (seen.has(value)) repeated.add(i, value);
    seen.add(value);
  });
  return repeated.errors();
}

/** CEL: a config item's `type` whose named int fields hold something CEL does not see as an int. */
function notInt(type: string, fields: string[]): string {
  const checks = fields.map((f) => `(has(item.${type}.${f}) && type(item.${type}.${f}) != int)`);
  return `(has(item.${type}) && (${checks.join(" || ")}))`;
}
