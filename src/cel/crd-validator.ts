import { type CelInput, type CelResult, celEnv, celError, isCelError, parse, plan } from "@bufbuild/cel";
import { RE2JS } from "@bufbuild/re2";
import { type FieldError, formatFieldError } from "../admission/field-errors.js";
import { own } from "../admission/own-property.js";
import { writeJson } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { LruCache } from "../memo/lru-cache.js";
import { Correlated } from "../schema/correlation.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { conversionMismatches, withConversionErrors } from "./conversion-errors.js";
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

/** A rule this evaluator cannot run (syntax it does not parse): reported, never judged. */
interface UnevaluatedRule {
  source: ValidationRule;
  reason: string;
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

function compileRule(source: ValidationRule): CompiledRule | UnevaluatedRule {
  try {
    const tree = parse(source.rule);
    const planned = plan(env, source.optionalOldSelf ? parse(withoutOptionalOldSelf(source.rule)) : tree);
    return {
      source,
      transition: references(tree, "oldSelf"),
      check: (bindings) => planned(bindings as never),
      ...(source.messageExpression ? { message: compile(source.messageExpression) } : {}),
    };
  } catch (error) {
    // The API server accepted the CRD, so the rule compiles there: what does not parse here is CEL
    // syntax this evaluator lacks (optional fields, two-variable comprehensions).
    return { source, reason: (error as Error).message.split("\n")[0] ?? "" };
  }
}

/** Whether a parsed expression names the identifier anywhere (macros expanded). */
function references(tree: unknown, name: string): boolean {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    const kind = (node as { exprKind?: { case?: string; value?: { name?: string } } }).exprKind;
    if (kind?.case === "identExpr" && kind.value?.name === name) return true;
    for (const value of Object.values(node))
      if (value !== null && typeof value === "object") stack.push(value);
  }
  return false;
}

/** What the rules found: errors, and the warnings the API server sends with the answer. */
export interface RuleVerdict {
  errors: FieldError[];
  /**
   * An error a rule found on a value the update left unchanged (the API server sends it as a warning,
   * `field: message`), or a rule this evaluator could not run (`... not evaluated offline`).
   */
  warnings: { field: FieldPath; message: string; notEvaluated?: true }[];
}

/**
 * Evaluates a CRD's `x-kubernetes-validations` as the API server does (apiextensions-apiserver's
 * schema/cel validator): each rule at every value its schema node describes, `self` bound to that
 * value; transition rules (those referencing `oldSelf`) only where the old object has a correlated
 * value, unless `optionalOldSelf`. On UPDATE a rule that does not reference oldSelf and fails on a
 * value that correlates with an unchanged old one (or, when it does not correlate, whose nearest
 * correlated container is unchanged) is ratcheted: a warning, not an error. Errors read as the API
 * server's: the value shown for a scalar, omitted for an object or list.
 *
 * A rule that calls a function this evaluator does not bind (Kubernetes' CEL libraries beyond those in
 * ./kubernetes-library.ts) or uses syntax it does not parse is never a verdict: it is reported as
 * not evaluated offline.
 */
export function crdRuleValidator(
  openAPIV3Schema: JsonSchema,
): (object: unknown, oldObject?: unknown) => RuleVerdict {
  const compiled = new Map<JsonSchema, (CompiledRule | UnevaluatedRule)[]>();
  const rulesOf = (schema: JsonSchema) => {
    let rules = compiled.get(schema);
    if (!rules) {
      rules = ((schema["x-kubernetes-validations"] ?? []) as ValidationRule[]).map(compileRule);
      compiled.set(schema, rules);
    }
    return rules;
  };
  return (object, oldObject) => {
    const verdict: RuleVerdict = { errors: [], warnings: [] };
    const correlated =
      oldObject === undefined ? undefined : new Correlated(object, oldObject, openAPIV3Schema);
    const context: Context = { rulesOf, verdict, converted: new Map(), convertedOld: new Map() };
    visit(
      openAPIV3Schema,
      object,
      oldObject,
      FieldPath.root(""),
      { current: correlated, parent: undefined },
      context,
    );
    return verdict;
  };
}

/** One evaluation: the rules, what was found, and each value's CEL form (converted once). */
interface Context {
  rulesOf: (schema: JsonSchema) => (CompiledRule | UnevaluatedRule)[];
  verdict: RuleVerdict;
  converted: Map<object, CelInput>;
  convertedOld: Map<object, CelInput>;
}

/** The value's correlation with the old object, or (when it has none) its nearest correlated container's. */
interface Ratchet {
  current: Correlated | undefined;
  parent: Correlated | undefined;
}

const uncorrelated: Ratchet = { current: undefined, parent: undefined };

function ratchetKey(ratchet: Ratchet, key: string, root: boolean): Ratchet {
  if (!ratchet.current) return ratchet;
  // apiVersion and kind at the root are not ratcheted (both sides are converted to the same type).
  if (root && (key === "apiVersion" || key === "kind")) return uncorrelated;
  return { current: ratchet.current.key(key), parent: ratchet.current };
}

function ratchetIndex(ratchet: Ratchet, index: number): Ratchet {
  if (!ratchet.current) return ratchet;
  return { current: ratchet.current.index(index), parent: ratchet.current };
}

function ratchets(ratchet: Ratchet): boolean {
  return ratchet.current ? ratchet.current.unchanged : ratchet.parent?.unchanged === true;
}

function visit(
  schema: JsonSchema,
  value: unknown,
  oldValue: unknown,
  path: FieldPath,
  ratchet: Ratchet,
  context: Context,
): void {
  if (value === undefined || value === null || !hasRulesWithin(schema)) return;
  for (const rule of context.rulesOf(schema)) {
    if ("reason" in rule && !("check" in rule)) notEvaluated(rule.source, rule.reason, path, context);
    else evaluate(rule as CompiledRule, schema, value, oldValue, path, ratchet, context);
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (!items) return;
    // Neither a path nor a ratchet is made for a subtree without rules.
    if (!hasRulesWithin(items)) return;
    const oldItems = correlatedItems(schema, value, oldValue);
    value.forEach((item, index) => {
      visit(items, item, oldItems[index], path.index(index), ratchetIndex(ratchet, index), context);
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
    if (childSchema && child !== undefined && child !== null && hasRulesWithin(childSchema))
      visit(
        childSchema,
        child,
        own(old, key),
        path.child(key),
        ratchetKey(ratchet, key, path.isEmpty),
        context,
      );
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
    writeJson(keys.map((key) => (item as Record<string, unknown> | null)?.[key]));
  const byKey = new Map<string, unknown>();
  for (const item of oldValue) if (!byKey.has(identity(item))) byKey.set(identity(item), item);
  return value.map((item) => byKey.get(identity(item)));
}

function notEvaluated(rule: ValidationRule, reason: string, path: FieldPath, context: Context): void {
  const message = `rule ${JSON.stringify(rule.rule)} not evaluated offline (${reason}): the API server checks it`;
  context.verdict.warnings.push({ field: path, message, notEvaluated: true });
}

/** An evaluation error from a function or macro this evaluator lacks: the API server has it. */
const unbound = /^unbound function|no such overload|unsupported/i;

function evaluate(
  rule: CompiledRule,
  schema: JsonSchema,
  value: unknown,
  oldValue: unknown,
  path: FieldPath,
  ratchet: Ratchet,
  context: Context,
): void {
  const hasOld = oldValue !== undefined && oldValue !== null;
  if (rule.transition && !hasOld && !rule.source.optionalOldSelf) return;
  const { converted, convertedOld } = context;
  const bindings = {
    self: toCel(value, schema, converted),
    oldSelf: hasOld ? toCel(oldValue, schema, convertedOld) : null,
    oldSelfPresent: hasOld,
  };
  let result = rule.check(bindings);
  // A value of the wrong type (ratcheted on UPDATE, in the new or the stored object) is an error value
  // in the API server's conversion: a rule fails with it where it reads it, and only there.
  const mismatches = hasOld ? conversionMismatches(value, schema) : [];
  const oldMismatches = hasOld ? conversionMismatches(oldValue, schema) : [];
  if (mismatches.length > 0 || oldMismatches.length > 0) {
    const self = withConversionErrors(value, mismatches);
    const oldSelf = withConversionErrors(oldValue, oldMismatches);
    const all = [...mismatches, ...oldMismatches];
    const probe =
      self === undefined || oldSelf === undefined
        ? undefined
        : rule.check({ ...bindings, self: toCel(self, schema), oldSelf: toCel(oldSelf, schema) });
    const read =
      probe === undefined
        ? (mismatches[0] ?? oldMismatches[0])
        : isCelError(probe)
          ? all.find((mismatch) => probe.message.includes(mismatch.message))
          : undefined;
    if (read) result = celError(read.message);
    else if (probe !== undefined) result = probe;
  }
  if (isCelError(result) && unbound.test(result.message)) {
    notEvaluated(rule.source, result.message, path, context);
    return;
  }
  const type = String(schema.type ?? "");
  const ruleText = (rule.source.message ?? "").trim() || rule.source.rule.trim();
  if (isCelError(result)) {
    context.verdict.errors.push({
      type: "invalid",
      field: path,
      value: type,
      detail: `${inCelGoWords(result.message)} evaluating rule: ${ruleText}`,
      verbatim: true,
    });
    return;
  }
  if (result === true) return;
  const at = withFieldPath(path, rule.source.fieldPath);
  // apiextensions shows a scalar's value and omits an object's or a list's.
  const shown = type === "object" || type === "array" ? {} : { value };
  const error = errorForReason(rule.source.reason, at, shown, messageOf(rule, bindings));
  if (!rule.transition && ratchets(ratchet)) {
    context.verdict.warnings.push({ field: at, message: formatFieldError(error) });
  } else context.verdict.errors.push(error);
}

/** An evaluation error in cel-go's words where @bufbuild/cel words it otherwise (a missing map key). */
function inCelGoWords(message: string): string {
  return message.replace(/^field not found: /, "no such key: ");
}

function messageOf(rule: CompiledRule, bindings: Bindings): string {
  const computed = rule.message?.(bindings);
  if (typeof computed === "string" && computed.trim() !== "") return computed;
  const message = (rule.source.message ?? "").trim();
  return message !== "" ? message : `failed rule: ${rule.source.rule.trim()}`;
}

function errorForReason(
  reason: ValidationRule["reason"],
  field: FieldPath,
  shown: { value?: unknown },
  detail: string,
): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return { type: "forbidden", field, detail, verbatim: true };
    case "FieldValueRequired":
      return { type: "required", field, detail, verbatim: true };
    case "FieldValueDuplicate":
      return { type: "duplicate", field, ...shown, verbatim: true };
    default:
      return { type: "invalid", field, ...shown, detail, verbatim: true };
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
