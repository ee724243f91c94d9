import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import {
  errorRules,
  formatMessage,
  type PolicyValidation,
  type RuleId,
  warningRules,
} from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { limits } from "../../base/limits.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import { celMessage, isUpdate, onOld, present } from "../../cel/policy-cel.js";
import type { ConfigItem } from "../../generated/module.js";
import { compileAll, MatchBudget } from "../../regex/re2.js";
import {
  closestMatch,
  editDistance,
  editDistanceCost,
  maxSuggestChars,
  type Suggestion,
} from "../../validation/suggest.js";
import { firstTypeCel, isEditable, largeConfig, typesOf, valueTypeOrder } from "./config-items.js";
import { integerBounds } from "./config-schema-rules.js";

const types = "forkspacer/forkspacer v0.1.24 api/v1/module_types.go";

// The native policies' CEL (src/cel/policy-cel.ts), item by item of the config schema, as the webhook's
// checks go: a value missing, given for an item that is not editable, or of the wrong kind.
const values = "object.spec.config";
// spec.config is free-form: its CEL type is an object without fields, so it is read as dyn (a map).
const asMap = (path: string) => `dyn(${path})`;
const given = (item: string) => `${present(values)} && ${item}.alias in ${asMap(values)}`;
const givenValue = (item: string) => `${asMap(values)}[${item}.alias]`;
const oldValue = (item: string) => `${asMap(onOld(values))}[${item}.alias]`;
const requiredCel = (item: string) =>
  firstTypeCel(item, (spec) => `(has(${spec}.required) && ${spec}.required)`, "false");
const editableCel = (item: string) =>
  firstTypeCel(item, (spec) => `(!has(${spec}.editable) || ${spec}.editable)`, "true");
const sameValues = `(${present(values)}) == (${present(onOld(values))}) && (!(${present(values)}) || ${values} == ${onOld(values)})`;
const field = (item: string) => `'spec.config.' + ${item}.alias`;

/** The value rules' wording, for their checks below and their policies alike. */
const requiredMessages = {
  required: "required by the config schema (the operator refuses it even with a default)",
} as const;
const notEditableMessages = {
  notEditable: "not editable: the config schema sets editable: false (the operator refuses any value)",
} as const;
/** The policy's: CEL tests a value against its item's constraints together; the check names the one. */
const valueMessages = {
  notAllowed: "not a value its config item allows (its type, min, max, regex or values)",
} as const;
const wholeNumber = {
  truncated: "must be a whole number (the operator would silently use {truncated})",
} as const;
const multipleOptionsValue = {
  refused:
    'the Forkspacer operator v0.1.24 refuses every multipleOptions value ("input is not an string array"); omit it to use the default',
} as const;

/** Every required item's alias in spec.config; on UPDATE spared when spec.config and such an item are as before. */
const requiredValues: PolicyValidation = {
  expression: `!has(object.config) || object.config.all(item, !${requiredCel("item")} || (${given("item")}) || (${isUpdate} && ${sameValues} && has(oldObject.config) && oldObject.config.exists(o, o.alias == item.alias && ${requiredCel("o")})))`,
  messageExpression: `object.config.filter(item, ${requiredCel("item")} && !(${given("item")})).map(item, ${field("item")} + ': Required value: ' + ${celMessage(requiredMessages.required)})[0]`,
};

/** No value for an item that is not editable; on UPDATE spared when the value and such an item are as before. */
const notEditableValues: PolicyValidation = {
  expression: `!has(object.config) || object.config.all(item, !(${given("item")}) || ${editableCel("item")} || (${isUpdate} && ${present(onOld(values))} && item.alias in ${asMap(onOld(values))} && ${oldValue("item")} == ${givenValue("item")} && has(oldObject.config) && oldObject.config.exists(o, o.alias == item.alias && !${editableCel("o")})))`,
  messageExpression: `object.config.filter(item, (${given("item")}) && !${editableCel("item")}).map(item, ${field("item")} + ': Forbidden: ' + ${celMessage(notEditableMessages.notEditable)})[0]`,
};

// Go's int range, which the operator's int(v) needs, as doubles (JSON numbers beyond int64 decode as such).
const outsideInt64 = (v: string) => `(${v} >= 9223372036854775808.0 || ${v} < -9223372036854775808.0)`;
const wholeDouble = (v: string) => `(${outsideInt64(v)} || double(int(${v})) == ${v})`;
const within = (spec: string, v: string) =>
  `(!has(${spec}.min) || ${v} >= ${spec}.min) && (!has(${spec}.max) || ${v} <= ${spec}.max)`;

/** CEL: whether an item's first type is `type`. */
const firstIs = (item: string, type: string) =>
  firstTypeCel(item, (spec) => (spec.endsWith(`.${type}`) ? "true" : "false"), "false", valueTypeOrder);

/** CEL that holds when a given value passes the rule, by the item's first type. */
const nativeValueRules: Record<string, (item: string, v: string) => string> = {
  "module.config-value": (item, v) =>
    firstTypeCel(
      item,
      (spec) => {
        const type = spec.slice(spec.lastIndexOf(".") + 1);
        if (type === "integer")
          return `(type(${v}) == int ? (${within(spec, v)}) : type(${v}) == double && !${outsideInt64(v)} && (double(int(${v})) != ${v} || (${within(spec, v)})))`;
        if (type === "boolean") return `type(${v}) == bool`;
        if (type === "string")
          return `(type(${v}) == string && (!has(${spec}.regex) || string(${v}).matches(${spec}.regex)))`;
        if (type === "option")
          return `(type(${v}) == string && has(${spec}.values) && ${v} in ${spec}.values)`;
        return "true";
      },
      "true",
      valueTypeOrder,
    ),
  "module.config-whole-number": (item, v) =>
    `!${firstIs(item, "integer")} || type(${v}) != double || ${wholeDouble(v)}`,
  "module.multiple-options-value": (item) => `!${firstIs(item, "multipleOptions")}`,
};

/** What each value rule's message says after the field (CEL, of the value `v`). */
const valueDetails: Record<string, (v: string) => string> = {
  "module.config-value": () => `': Invalid value: ' + ${celMessage(valueMessages.notAllowed)}`,
  "module.config-whole-number": (v) =>
    `': Invalid value: ' + string(${v}) + ': ' + ${celMessage(wholeNumber.truncated, { truncated: `string(int(${v}))` })}`,
  "module.multiple-options-value": () => `': Forbidden: ' + ${celMessage(multipleOptionsValue.refused)}`,
};

/**
 * A given, editable value of the kind its item asks for. On UPDATE a value is spared when it and its
 * item are as before (its error, then, is the one the old object had).
 */
function valueCheck(rule: string): PolicyValidation {
  const passes = nativeValueRules[rule];
  const detail = valueDetails[rule];
  if (!passes || !detail) throw new Error(`no value rule ${rule}`);
  const applies = (item: string) => `(${given(item)}) && ${editableCel(item)}`;
  const spared = (item: string) =>
    `(${isUpdate} && ${present(onOld(values))} && ${item}.alias in ${asMap(onOld(values))} && ${oldValue(item)} == ${givenValue(item)} && has(oldObject.config) && ${item} in oldObject.config)`;
  return {
    expression: `!has(object.config) || object.config.all(item, !(${applies("item")}) || (${passes("item", givenValue("item"))}) || ${spared("item")})`,
    messageExpression: `object.config.filter(item, ${applies("item")} && !(${passes("item", givenValue("item"))})).map(item, ${field("item")} + ${detail(givenValue("item"))})[0]`,
  };
}

/** spec.config judged as the operator's GetValidatedConfig judges it. */
export const configValueRules = [
  ...errorRules({
    "module.config-required": {
      summary: "a required config item missing from spec.config, even one with a default",
      realSystem: "refuses the Module (its webhook on CREATE, and at reconcile)",
      upstream: `${types}, GetValidatedConfig`,
      messages: requiredMessages,
      native: { by: "policy", policy: { validations: [requiredValues], largeWhen: largeConfig } },
    },
    "module.config-not-editable": {
      summary: "a value for an item with editable: false, even its default",
      realSystem: "refuses the Module (its webhook on CREATE, and at reconcile)",
      upstream: `${types}, GetValidatedConfig, each config type's Validate`,
      messages: notEditableMessages,
      native: { by: "policy", policy: { validations: [notEditableValues], largeWhen: largeConfig } },
    },
    "module.config-value": {
      summary: "a value of the wrong type, outside min/max, not matching the regex or not among the options",
      realSystem:
        "refuses the Module; an integer beyond Go's int range is converted with int(v), undefined in Go",
      stricter: "an integer of 2^63 or more: the value used would not be the one written",
      upstream: `${types}, each config type's Validate`,
      messages: valueMessages,
      native: {
        by: "policy",
        policy: {
          coarserMessage:
            "CEL tests a value against its item's type, bounds, regex and values together; the webhook names the one it breaks",
          validations: [valueCheck("module.config-value")],
          errorsAdmit: true,
          largeWhen: largeConfig,
        },
      },
    },
    "module.config-whole-number": {
      summary: "an integer item's value that is not whole (2.5)",
      realSystem: "truncates it silently to 2",
      stricter: "the user asked for something else",
      upstream: `${types}, ConfigItemSpecInteger.Validate (int(v))`,
      messages: wholeNumber,
      native: {
        by: "policy",
        policy: { validations: [valueCheck("module.config-whole-number")], largeWhen: largeConfig },
      },
    },
    "module.multiple-options-value": {
      summary: "any value for a multipleOptions item",
      realSystem: "v0.1.24 refuses every one: a type assertion to []string on decoded JSON always fails",
      upstream: `${types}, ConfigItemSpecMultipleOptions.Validate`,
      messages: multipleOptionsValue,
      native: {
        by: "policy",
        policy: { validations: [valueCheck("module.multiple-options-value")], largeWhen: largeConfig },
      },
    },
  }),
  ...warningRules({
    "module.config-undeclared": {
      summary: "spec.config keys no config item declares",
      realSystem: "ignored for helm Modules; passed whole to a custom Module's runner as config.json",
      upstream: `${types}, GetValidatedConfig`,
      native: {
        by: "webhook",
        why: 'the "did you mean" hint (an edit distance), and for a custom Module the test that a key is one edit from an alias',
        callWhen: `${present("object.spec.config")} && object.spec.config.exists(key, !has(object.config) || !object.config.exists(item, item.alias == key))`,
      },
    },
  }),
];

const valuesPath = FieldPath.root("spec").child("config");

/** What the Module runs as: the operator treats undeclared spec.config keys differently for each. */
export type ModuleSource = "helm" | "custom" | undefined;

export interface ConfigValuesVerdict {
  errors: FieldErrorList;
  warnings: FieldWarning[];
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
  source: ModuleSource,
  work: WorkBudget,
): ConfigValuesVerdict {
  return compileConfigValues(items)(values, source, work);
}

/** The same rules with what depends only on the config schema worked out once, for many Modules. */
export function compileConfigValues(
  items: ConfigItem[],
): (values: Record<string, unknown>, source: ModuleSource, work: WorkBudget) => ConfigValuesVerdict {
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
  return (values, source, work) => {
    const verdict: ConfigValuesVerdict = { errors: [], warnings: [] };
    const budget = new MatchBudget(undefined, work);
    // Warnings only as many as the API server shows (it keeps 4 KiB of them): 9,000 undeclared keys
    // must not cost 9,000 did-you-mean searches. The hints are paid from the review's work budget:
    // once it cannot pay, the rest go without a hint, and one warning says so.
    const hints = work.part(hintUnits);
    let undeclared = 0;
    let hintsStopped = false;
    const keyWarnings: FieldWarning[] = [];
    const keys = Object.keys(values);
    work.charge(keys.length, "checking spec.config's keys", valuesPath);
    for (const key of keys) {
      if (declared.has(key)) continue;
      if (++undeclared > limits.listErrors) continue;
      const suggestion: Suggestion = hintsStopped ? { stopped: true } : suggest(key, aliases, source, hints);
      hintsStopped ||= suggestion.stopped === true;
      keyWarnings.push(...undeclaredKey(key, suggestion, source));
    }
    // First, so that the 4 KiB of warnings the API server keeps cannot cut it off.
    if (hintsStopped) verdict.warnings.push(warningAt(valuesPath, hintsLeftOut));
    verdict.warnings.push(...keyWarnings);
    if (undeclared > limits.listErrors) {
      verdict.warnings.push(
        warningAt(valuesPath, `${valuesPath}: ${undeclared - limits.listErrors} more keys are not declared`),
      );
    }
    for (const check of checks) {
      if (!Object.hasOwn(values, check.alias)) {
        if (check.required) {
          const detail = requiredMessages.required;
          verdict.errors.push(...byRule("module.config-required", [fieldError.required(check.path, detail)]));
        }
        continue;
      }
      if (!check.editable) {
        const detail = notEditableMessages.notEditable;
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

/**
 * The part of a review's work budget hints may use (about 12 ms here): hints are optional, and must
 * leave the rest to the rules that decide.
 */
const hintUnits = 2_000_000;

/** The one note for hints the review's work budget could not pay for. */
export const hintsLeftOut = `spec.config: "did you mean" hints left out: the webhook's work budget is spent`;

/**
 * The alias an undeclared key is likely a typo of. A custom Module's runner gets every key, so only a
 * key one edit from an alias is worth a word there; a helm Module's key is ignored, so the closest.
 */
function suggest(key: string, aliases: string[], source: ModuleSource, work: WorkBudget): Suggestion {
  if (source !== "custom") return closestMatch(key, aliases, work);
  if (key.length > maxSuggestChars) return {};
  if (!work.tryCharge(aliases.length)) return { stopped: true };
  // Only short names one character apart in length can be one edit apart.
  for (const alias of aliases) {
    if (Math.abs(alias.length - key.length) > 1) continue;
    if (!work.tryCharge(editDistanceCost(key, alias))) return { stopped: true };
    if (editDistance(key, alias) === 1) return { match: alias };
  }
  return {};
}

function undeclaredKey(key: string, suggestion: Suggestion, source: ModuleSource): FieldWarning[] {
  const path = valuesPath.child(key);
  const hint = suggestion.match ? `; did you mean ${JSON.stringify(suggestion.match)}?` : "";
  if (source === "custom") {
    return hint ? [warningAt(path, `${path} is not declared, but passed to the runner${hint}`)] : [];
  }
  return [warningAt(path, `${path} is not declared in the config schema: the operator ignores it${hint}`)];
}

type ValueRule = (value: unknown, path: FieldPath, budget: MatchBudget) => FieldErrorList;

/**
 * The checker for one item's values (the first type wins, as in the operator), with its regex compiled
 * once per config schema (a pattern that does not compile is a schema error; its values are not matched).
 */
function valueRules(item: ConfigItem, compiled: ReturnType<typeof compileAll>[number]): ValueRule {
  const rule = (id: RuleId, errors: FieldErrorList) => byRule(id, errors);
  const integer = item.integer;
  if (integer) {
    return (given, path) => {
      if (typeof given !== "number" && typeof given !== "bigint")
        return rule("module.config-value", [typeError(path, given, "integer")]);
      // The operator reads spec.config with encoding/json into map[string]any: every number a float64
      // (9223372036854775807 becomes 2^63, 9007199254740993 becomes 9007199254740992).
      const value = Number(given);
      if (!Number.isInteger(value)) {
        const detail = formatMessage(wholeNumber.truncated, { truncated: String(Math.trunc(value)) });
        return rule("module.config-whole-number", [fieldError.invalid(path, given, detail)]);
      }
      // The operator converts the JSON number with int(v): beyond int64 Go leaves the result undefined.
      if (value >= 2 ** 63 || value < -(2 ** 63)) {
        const read = typeof given === "bigint" ? ", which the operator reads as the float64 2^63" : "";
        const detail = `must be within Go's int range, -2^63 to 2^63-1${read} (the operator's int() of it is undefined)`;
        return rule("module.config-value", [fieldError.invalid(path, given, detail)]);
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
      rule("module.multiple-options-value", [fieldError.forbidden(path, multipleOptionsValue.refused)]);
  }
  return () => [];
}

function typeError(path: FieldPath, value: unknown, expected: string) {
  return fieldError.invalid(path, value, `must be of type ${expected}`);
}
