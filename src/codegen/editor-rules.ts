import { parse, run } from "@bufbuild/cel";
import type { ValidationRule } from "../cel/crd-validator.js";
import type { JsonSchema } from "../schema/schema-source.js";

/**
 * The part of a node's CEL rules (`x-kubernetes-validations`) that JSON Schema can say, for the editor
 * schema: each rule's meaning on CREATE (what an editor shows is a new object), translated only where the
 * translation is exact, with the rule's own message. Two shapes are understood:
 * - on an object, a rule over which of its fields are set (`has(self.x)`, `!`, `&&`, `||`): for each
 *   combination of set fields the rule refuses, an `if`/`then` that flags the field the rule names
 *   (`fieldPath`) or, without one, the first field of the rule (`has(self.helm) || has(self.custom)`,
 *   `!has(self.helm) || !has(self.custom)`);
 * - on a string, a rule over the value (`self.matches('re')`, `self == 'x'`, `self.size() <= n`, `!`,
 *   `&&`, `||`): `pattern`, `const`, `maxLength`, `not`, `allOf`, `anyOf`, a regular expression only
 *   where RE2 and ECMAScript read it alike.
 * Transition rules (`oldSelf` without `optionalOldSelf`) do not run on CREATE and are left out; in an
 * `optionalOldSelf` rule `oldSelf.hasValue()` is false on CREATE. Anything else stays CEL-only.
 */
export function editorConstraints(node: JsonSchema): JsonSchema[] {
  const rules = (node["x-kubernetes-validations"] ?? []) as ValidationRule[];
  return rules.flatMap((rule) => {
    const message = rule.message ?? `failed rule: ${rule.rule}`;
    let formula: Formula | undefined;
    try {
      formula = toFormula(parse(rule.rule).expr, rule.optionalOldSelf === true);
    } catch {
      return [];
    }
    if (formula === undefined) return [];
    if (node.type === "object") return presenceConstraints(formula, rule);
    if (rule.messageExpression !== undefined) return [];
    if (node.type === "string") {
      const schema = valueSchema(formula, message);
      return schema ? [schema] : [];
    }
    return [];
  });
}

type Expr = ReturnType<typeof parse>["expr"];

/** A rule's create-time meaning, over what JSON Schema can test. */
type Formula =
  | { op: "true" | "false" }
  | { op: "has"; field: string }
  | { op: "matches"; pattern: string }
  | { op: "equals"; value: string }
  | { op: "maxLength" | "minLength"; length: number }
  | { op: "not"; of: Formula }
  | { op: "and" | "or"; of: Formula[] };

const TRUE: Formula = { op: "true" };
const FALSE: Formula = { op: "false" };

function toFormula(expr: Expr | undefined, optionalOldSelf: boolean): Formula | undefined {
  const kind = expr?.exprKind;
  if (kind?.case === "constExpr" && kind.value.constantKind.case === "boolValue") {
    return kind.value.constantKind.value ? TRUE : FALSE;
  }
  if (kind?.case === "selectExpr" && kind.value.testOnly) {
    return isIdent(kind.value.operand, "self") ? { op: "has", field: kind.value.field } : undefined;
  }
  if (kind?.case !== "callExpr") return undefined;
  const call = kind.value;
  const [first, second] = call.args;
  switch (call.function) {
    case "!_": {
      const of = toFormula(first, optionalOldSelf);
      if (of === undefined) return undefined;
      return of.op === "true" ? FALSE : of.op === "false" ? TRUE : { op: "not", of };
    }
    case "_&&_":
    case "_||_": {
      const and = call.function === "_&&_";
      // A false operand decides `&&` (a true one `||`) whatever the other says, even untranslatable.
      const [absorbing, neutral] = and ? ["false", "true"] : ["true", "false"];
      const parts = [first, second].map((arg) => toFormula(arg, optionalOldSelf));
      if (parts.some((part) => part?.op === absorbing)) return and ? FALSE : TRUE;
      if (parts.some((part) => part === undefined)) return undefined;
      const kept = (parts as Formula[]).filter((part) => part.op !== neutral);
      if (kept.length === 0) return and ? TRUE : FALSE;
      if (kept.length === 1) return kept[0];
      return { op: and ? "and" : "or", of: kept };
    }
    case "hasValue":
      // `oldSelf.hasValue()`: there is no old object on CREATE.
      return optionalOldSelf && isIdent(call.target, "oldSelf") && call.args.length === 0 ? FALSE : undefined;
    case "matches": {
      const pattern = stringConstant(first);
      return isIdent(call.target, "self") && pattern !== undefined && sameInEcmaScript(pattern)
        ? { op: "matches", pattern }
        : undefined;
    }
    case "_==_": {
      const value = isIdent(first, "self") ? stringConstant(second) : undefined;
      return value === undefined ? undefined : { op: "equals", value };
    }
    case "_<=_":
    case "_<_":
    case "_>=_":
    case "_>_": {
      const size = selfSize(first) ? intConstant(second) : undefined;
      if (size === undefined) return undefined;
      if (call.function === "_<=_") return { op: "maxLength", length: size };
      if (call.function === "_<_") return { op: "maxLength", length: size - 1 };
      if (call.function === "_>=_") return { op: "minLength", length: size };
      return { op: "minLength", length: size + 1 };
    }
    default:
      return undefined;
  }
}

function isIdent(expr: Expr | undefined, name: string): boolean {
  return expr?.exprKind.case === "identExpr" && expr.exprKind.value.name === name;
}

function stringConstant(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  return kind?.case === "constExpr" && kind.value.constantKind.case === "stringValue"
    ? kind.value.constantKind.value
    : undefined;
}

function intConstant(expr: Expr | undefined): number | undefined {
  const kind = expr?.exprKind;
  return kind?.case === "constExpr" && kind.value.constantKind.case === "int64Value"
    ? Number(kind.value.constantKind.value)
    : undefined;
}

function selfSize(expr: Expr | undefined): boolean {
  const kind = expr?.exprKind;
  if (kind?.case !== "callExpr" || kind.value.function !== "size") return false;
  const { target, args } = kind.value;
  return target
    ? isIdent(target, "self") && args.length === 0
    : args.length === 1 && isIdent(args[0], "self");
}

/**
 * Whether RE2 (CEL's `matches`, an unanchored search) and ECMAScript with the `u` flag (an editor's
 * `pattern`, also unanchored) read the expression alike: literals, classes without shorthands, groups,
 * alternation, anchors and counted repetition do; `.` (ECMAScript's excludes `\r` and U+2028/9 too),
 * `\d`, `\s`, `\w`, `\b`, flags and named groups may not, and are left to CEL.
 */
function sameInEcmaScript(pattern: string): boolean {
  if (/\(\?|\[\[:|\\[A-Za-z0-9]/.test(pattern)) return false;
  // A `.` outside a class.
  if (/\./.test(pattern.replace(/\[(?:\\.|[^\]\\])*\]/g, ""))) return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** A string rule as a schema of the value, the rule's message on what an editor reports. */
function valueSchema(formula: Formula, message: string): JsonSchema | undefined {
  switch (formula.op) {
    case "true":
      return {};
    case "matches":
      return { pattern: formula.pattern, patternErrorMessage: message };
    case "equals":
      return { const: formula.value, errorMessage: message };
    case "maxLength":
      return { maxLength: formula.length };
    case "minLength":
      return { minLength: formula.length };
    case "not": {
      const of = valueSchema(formula.of, message);
      return of && { not: of };
    }
    case "and":
    case "or": {
      const parts = formula.of.map((part) => valueSchema(part, message));
      if (parts.some((part) => part === undefined)) return undefined;
      return { [formula.op === "and" ? "allOf" : "anyOf"]: parts };
    }
    default:
      return undefined;
  }
}

/** The most fields a presence rule may name: its combinations are listed one by one. */
const maxPresenceFields = 6;

/**
 * An object rule over which fields are set, as one `if`/`then` per combination it refuses: the `if`
 * says which fields are set and which are not, the `then` flags the rule's field with its message
 * (`Property custom is not allowed` worded as the rule: "may not be set together with spec.helm"),
 * as absent where the combination lacks it, as present where it has it.
 */
function presenceConstraints(formula: Formula, rule: ValidationRule): JsonSchema[] {
  const fields: string[] = [];
  const collect = (part: Formula): boolean => {
    if (part.op === "has") {
      if (!fields.includes(part.field)) fields.push(part.field);
      return true;
    }
    if (part.op === "not") return collect(part.of);
    if (part.op === "and" || part.op === "or") return part.of.every(collect);
    return false;
  };
  if (!collect(formula) || fields.length === 0 || fields.length > maxPresenceFields) return [];
  const named = /^\.([A-Za-z_$][A-Za-z0-9_$]*)$/.exec(rule.fieldPath ?? "")?.[1];
  const flagged = named !== undefined && fields.includes(named) ? named : (fields[0] as string);
  const constraints: JsonSchema[] = [];
  for (let set = 0; set < 1 << fields.length; set++) {
    const present = fields.filter((_, i) => (set >> i) & 1);
    if (holds(formula, present)) continue;
    const absent = fields.filter((field) => !present.includes(field));
    const message = presenceMessage(rule, present);
    if (message === undefined) return [];
    constraints.push({
      if: {
        ...(present.length > 0 ? { required: present } : {}),
        ...(absent.length > 0 ? { properties: Object.fromEntries(absent.map((f) => [f, false])) } : {}),
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
      then: present.includes(flagged)
        ? { properties: { [flagged]: false }, errorMessage: message }
        : { required: [flagged], errorMessage: message },
    });
  }
  return constraints;
}

/**
 * The rule's message for a combination of set fields: its `messageExpression` evaluated on an object
 * with just those fields where it has one (one that reads their values cannot be, and the rule stays
 * CEL-only), else its `message`.
 */
function presenceMessage(rule: ValidationRule, present: string[]): string | undefined {
  if (rule.messageExpression === undefined) return rule.message ?? `failed rule: ${rule.rule}`;
  const self = Object.fromEntries(present.map((field) => [field, {}]));
  try {
    const message = run(rule.messageExpression, { self });
    return typeof message === "string" && message !== "" ? message : undefined;
  } catch {
    return undefined;
  }
}

function holds(formula: Formula, present: string[]): boolean {
  switch (formula.op) {
    case "true":
      return true;
    case "has":
      return present.includes(formula.field);
    case "not":
      return !holds(formula.of, present);
    case "and":
      return formula.of.every((part) => holds(part, present));
    case "or":
      return formula.of.some((part) => holds(part, present));
    default:
      return false;
  }
}
