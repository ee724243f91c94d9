import { isDeepStrictEqual } from "node:util";
import { type CelInput, type CelResult, celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { RE2JS } from "@bufbuild/re2";
import { type FieldError, fieldError } from "../admission/field-errors.js";
import { FieldPath } from "../admission/field-path.js";
import { own } from "../admission/own-property.js";
import type { JsonSchema } from "../codegen/schema-source.js";
import { LruCache } from "../memo/lru-cache.js";
import { kubernetesFunctions } from "./kubernetes-library.js";
import { withoutOptionalOldSelf } from "./optional-old-self.js";
import { toCel } from "./to-cel.js";

/** One `x-kubernetes-validations` entry, as apiextensions.k8s.io/v1 defines it. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  /** Runs on CREATE too, with `oldSelf` an optional (src/cel/optional-old-self.ts). */
  optionalOldSelf?: boolean;
}

type Bindings = { self: unknown; oldSelf: unknown; oldSelfPresent: boolean };

interface CompiledRule {
  source: ValidationRule;
  /** A transition rule reads oldSelf, so it runs only on UPDATE when the old value exists (unless optionalOldSelf). */
  transition: boolean;
  check: (bindings: Bindings) => CelResult;
  message?: (bindings: Bindings) => CelResult;
}

/**
 * `matches` patterns, compiled once: a CRD's rules match the same few patterns against every object
 * (CEL's own `matches` compiles its pattern on every call). Same engine, RE2; bounded in entries, and
 * a very long pattern is compiled each time rather than kept. A compiled pattern is reckoned at 512
 * bytes a character (as src/regex/re2.ts reckons an instruction; a character compiles to about one).
 */
const bytesPerPatternChar = 512;
const compiledPatterns = new LruCache<RE2JS>({ bytes: 4 * 1024 * 1024, entries: 256 });
const re2 = {
  compile: (pattern: string) =>
    pattern.length <= 1024
      ? compiledPatterns.getOrSet(
          pattern,
          () => RE2JS.compile(pattern),
          () => bytesPerPatternChar * pattern.length,
        )
      : RE2JS.compile(pattern),
};

// The Kubernetes CEL libraries the API server gives CRD rules too (and its map semantics).
const env = celEnv({ funcs: kubernetesFunctions, re2 });

function compile(expression: string) {
  const planned = plan(env, parse(expression));
  return (bindings: Bindings) => planned(bindings as never);
}

function compileRule(source: ValidationRule): CompiledRule | FieldErrorFactory {
  try {
    return {
      source,
      transition: /\boldSelf\b/.test(source.rule),
      check: compile(source.optionalOldSelf ? withoutOptionalOldSelf(source.rule) : source.rule),
      ...(source.messageExpression ? { message: compile(source.messageExpression) } : {}),
    };
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    return (path) => fieldError.invalid(path, source.rule, `rule compile error: ${reason}`);
  }
}

type FieldErrorFactory = (path: FieldPath) => FieldError;

/**
 * Evaluates a CRD's `x-kubernetes-validations` as the API server does: each rule at every value its
 * schema node describes, `self` bound to that value; transition rules (those reading `oldSelf`) only
 * where the old object has a value at the same place (object properties and map values correlate,
 * list items do not unless the list is a `map` list). Rules are compiled once per schema.
 */
export function crdRuleValidator(
  openAPIV3Schema: JsonSchema,
): (object: unknown, oldObject?: unknown) => FieldError[] {
  const compiled = new Map<JsonSchema, (CompiledRule | FieldErrorFactory)[]>();
  const rulesOf = (schema: JsonSchema) => {
    let rules = compiled.get(schema);
    if (!rules) {
      rules = ((schema["x-kubernetes-validations"] ?? []) as ValidationRule[]).map(compileRule);
      compiled.set(schema, rules);
    }
    return rules;
  };
  return (object, oldObject) => {
    const errors: FieldError[] = [];
    const context = { rulesOf, errors, converted: new Map(), convertedOld: new Map() };
    visit(openAPIV3Schema, object, oldObject, FieldPath.root(""), context);
    return errors;
  };
}

/** One evaluation: the rules, the errors found, and each value's CEL form (converted once). */
interface Context {
  rulesOf: (schema: JsonSchema) => (CompiledRule | FieldErrorFactory)[];
  errors: FieldError[];
  converted: Map<object, CelInput>;
  convertedOld: Map<object, CelInput>;
}

function visit(
  schema: JsonSchema,
  value: unknown,
  oldValue: unknown,
  path: FieldPath,
  context: Context,
): void {
  if (value === undefined || value === null || !hasRulesWithin(schema)) return;
  for (const rule of context.rulesOf(schema)) {
    if (typeof rule === "function") context.errors.push(rule(path));
    else evaluate(rule, schema, value, oldValue, path, context);
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (!items) return;
    const oldItems = correlatedItems(schema, value, oldValue);
    value.forEach((item, index) => {
      visit(items, item, oldItems[index], path.index(index), context);
    });
    return;
  }
  if (typeof value !== "object") return;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const additional =
    typeof schema.additionalProperties === "object" ? (schema.additionalProperties as JsonSchema) : undefined;
  const old =
    oldValue !== null && typeof oldValue === "object" ? (oldValue as Record<string, unknown>) : undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childSchema = own(properties, key) ?? additional;
    if (childSchema) visit(childSchema, child, own(old, key), path.child(key), context);
  }
}

/** Whether a schema node or any node below it has rules, found once per node: most subtrees have none. */
const rulesWithin = new WeakMap<JsonSchema, boolean>();

function hasRulesWithin(schema: JsonSchema): boolean {
  let found = rulesWithin.get(schema);
  if (found === undefined) {
    const children = [
      ...Object.values((schema.properties ?? {}) as Record<string, JsonSchema>),
      ...[schema.items, schema.additionalProperties].filter(
        (child): child is JsonSchema => child !== null && typeof child === "object",
      ),
    ];
    const rules = schema["x-kubernetes-validations"];
    found = (Array.isArray(rules) && rules.length > 0) || children.some(hasRulesWithin);
    rulesWithin.set(schema, found);
  }
  return found;
}

/** Old list items matched to new ones: by their keys in a `map` list, not at all otherwise. */
function correlatedItems(schema: JsonSchema, value: unknown[], oldValue: unknown): unknown[] {
  const keys = schema["x-kubernetes-list-map-keys"] as string[] | undefined;
  if (schema["x-kubernetes-list-type"] !== "map" || !keys || !Array.isArray(oldValue)) return [];
  const identity = (item: unknown) =>
    JSON.stringify(keys.map((key) => (item as Record<string, unknown> | null)?.[key]));
  const byKey = new Map(oldValue.map((item) => [identity(item), item]));
  return value.map((item) => byKey.get(identity(item)));
}

function evaluate(
  rule: CompiledRule,
  schema: JsonSchema,
  value: unknown,
  oldValue: unknown,
  path: FieldPath,
  { errors, converted, convertedOld }: Context,
): void {
  const hasOld = oldValue !== undefined && oldValue !== null;
  if (rule.transition && !hasOld && !rule.source.optionalOldSelf) return;
  // Ratcheting (KEP-4008, CRDValidationRatcheting, on by default since Kubernetes 1.30): a rule that
  // does not read oldSelf is not enforced on a value the update left unchanged. Transition rules are.
  if (!rule.transition && hasOld && isDeepStrictEqual(value, oldValue)) return;
  const bindings = {
    self: toCel(value, schema, converted),
    oldSelf: hasOld ? toCel(oldValue, schema, convertedOld) : null,
    oldSelfPresent: hasOld,
  };
  const result = rule.check(bindings);
  const at = withFieldPath(path, rule.source.fieldPath);
  // apiextensions (pkg/apiserver/schema/cel/validation.go) shows the schema type where a value would
  // go in an evaluation error (`spec: Invalid value: "object": ...`); a rule that fails shows the value
  // itself, or none for an object or a list (omitValue: `spec: Invalid value: <message>`).
  if (isCelError(result)) {
    errors.push(
      fieldError.invalid(at, String(schema.type ?? ""), `rule evaluation error: ${result.message}`),
    );
    return;
  }
  if (result === true) return;
  const omitted = schema.type === "object" || schema.type === "array";
  errors.push(errorForReason(rule.source.reason, at, omitted ? omit : value, messageOf(rule, bindings)));
}

/** apimachinery's omitValue: the message says no value. */
const omit = Symbol("omitted value");

function messageOf(rule: CompiledRule, bindings: Bindings): string {
  const computed = rule.message?.(bindings);
  if (typeof computed === "string" && computed.trim() !== "") return computed;
  return rule.source.message ?? `failed rule: ${rule.source.rule}`;
}

function errorForReason(reason: ValidationRule["reason"], path: FieldPath, value: unknown, detail: string) {
  switch (reason) {
    case "FieldValueForbidden":
      return fieldError.forbidden(path, detail);
    case "FieldValueRequired":
      return fieldError.required(path, detail);
    case "FieldValueDuplicate":
      // field.Duplicate(path, value): no detail.
      return value === omit ? { type: "duplicate" as const, field: path } : fieldError.duplicate(path, value);
    default:
      return value === omit
        ? fieldError.invalidOmitted(path, detail)
        : fieldError.invalid(path, value, detail);
  }
}

/** `.releaseName` or `.a.b` relative to the rule's node, as the CRD's fieldPath gives it. */
function withFieldPath(path: FieldPath, fieldPath: string | undefined): FieldPath {
  if (!fieldPath) return path;
  return fieldPath
    .split(".")
    .filter((step) => step !== "")
    .reduce((at, step) => at.child(step), path);
}
