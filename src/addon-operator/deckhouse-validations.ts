import { type CelInput, isCelError, parse, run } from "@bufbuild/cel";
import { celCompileError, celTypeOf } from "./cel-check.js";
import { celGoConversions } from "./cel-conversions.js";
import { hasKey, isMap, type Schema, schemaMap } from "./schema.js";
import type { PathSegment, Violation } from "./validate.js";

/**
 * YAML data as cel-go sees it after structpb: maps as Map (so `self.key` works) and every number a
 * double (`self.replicas / 2` is a double division; `1 + self.replicas` has no overload, an error).
 */
function toCel(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(toCel);
  if (isMap(value)) return new Map(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  return value as CelInput;
}

interface Rule {
  expression: string;
  message: string;
  /** The rule reads `oldSelf`: a transition rule, run only when there is an old value. */
  transition: boolean;
}

/** cel-go's evaluation errors the port cannot tell from a missing key, and so skips (see above). */
export const goIndexErrorsSkipped = /index out of bounds|unsupported index type/;

/** What cel.go returns for a schema whose rules it cannot run: the whole validation fails with it. */
export class DeckhouseValidationError extends Error {}

/** The rules of one schema node, or the error cel.go returns for a malformed list, entry or expression. */
function rulesOf(schema: Schema, where: string): Rule[] {
  if (!hasKey(schema, "x-deckhouse-validations")) return [];
  const raw = schema["x-deckhouse-validations"];
  const fail = (why: string) => {
    throw new DeckhouseValidationError(`${where}: x-deckhouse-validations invalid${why}`);
  };
  if (!Array.isArray(raw)) return fail("");
  return raw.map((entry) => {
    if (!isMap(entry) || Object.keys(entry).length === 0) return fail("");
    if (typeof entry.expression !== "string" || entry.expression === "") return fail(": missing expression");
    if (typeof entry.message !== "string" || entry.message === "") return fail(": missing message");
    let undeclared: string | undefined;
    try {
      undeclared = undeclaredNames(parse(entry.expression).expr)[0];
    } catch (error) {
      throw new DeckhouseValidationError(
        `${where}: compile the '${entry.expression}' rule: ${(error as Error).message.split("\n")[0]}`,
      );
    }
    if (undeclared !== undefined) {
      throw new DeckhouseValidationError(
        `${where}: compile the '${entry.expression}' rule: undeclared reference to '${undeclared}'`,
      );
    }
    return {
      expression: entry.expression,
      message: entry.message,
      transition: /\boldSelf\b/.test(entry.expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, "")),
    };
  });
}

/** What cel-go's environment declares (`self`, `oldSelf`) and the type names CEL itself knows. */
const declared = new Set([
  "self",
  "oldSelf",
  ...["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"],
]);

interface ExprNode {
  exprKind: { case?: string; value?: unknown };
}

/**
 * Identifiers the expression reads that nothing declares (`slef.x`): cel-go's compiler refuses the rule
 * ("undeclared reference"). Macro variables (`all(x, ...)`) are declared inside their comprehension.
 * Qualified names under `google.` (protobuf types) are left alone.
 */
function undeclaredNames(root: ExprNode | undefined): string[] {
  const found: string[] = [];
  const visit = (node: ExprNode | undefined, scope: ReadonlySet<string>): void => {
    if (!node) return;
    const { case: kind, value } = node.exprKind;
    const v = value as Record<string, unknown>;
    if (kind === "identExpr") {
      const name = String(v.name);
      if (!declared.has(name) && !scope.has(name) && name !== "google") found.push(name);
    } else if (kind === "selectExpr") visit(v.operand as ExprNode, scope);
    else if (kind === "callExpr") {
      visit(v.target as ExprNode | undefined, scope);
      for (const arg of v.args as ExprNode[]) visit(arg, scope);
    } else if (kind === "listExpr") for (const item of v.elements as ExprNode[]) visit(item, scope);
    else if (kind === "structExpr") {
      for (const entry of v.entries as { mapKey?: ExprNode; value?: ExprNode }[]) {
        visit(entry.mapKey, scope);
        visit(entry.value, scope);
      }
    } else if (kind === "comprehensionExpr") {
      visit(v.iterRange as ExprNode, scope);
      visit(v.accuInit as ExprNode, scope);
      const accu = new Set([...scope, String(v.accuVar)]);
      const loop = new Set([...accu, String(v.iterVar), ...(v.iterVar2 ? [String(v.iterVar2)] : [])]);
      visit(v.loopCondition as ExprNode, loop);
      visit(v.loopStep as ExprNode, loop);
      visit(v.result as ExprNode, accu);
    }
  };
  visit(root, new Set());
  return found;
}

export interface CelOptions {
  /** "state": the rules without oldSelf; "transition": only the rules that read oldSelf. */
  rules: "state" | "transition";
}

/**
 * The schema's `x-deckhouse-validations` as addon-operator's `cel.ValidateTransition` runs them: properties
 * first (keys that are present), then the node's own rules; a rule on a key that is missing is skipped;
 * a failed rule gives its message. A malformed rule list, a compile error, an evaluation error or a
 * non-boolean result throws DeckhouseValidationError (addon-operator refuses the values with it). `oldValue`
 * is the stored section without defaults; transition rules run only where it has a value.
 */
export function runDeckhouseValidations(
  value: unknown,
  oldValue: unknown,
  schema: Schema,
  rootName: string,
  options: CelOptions,
  path: PathSegment[] = [],
): Violation[] {
  const violations: Violation[] = [];
  if (isMap(value)) {
    for (const [key, property] of schemaMap(schema, "properties")) {
      if (!hasKey(value, key)) continue;
      const old = isMap(oldValue) && hasKey(oldValue, key) ? oldValue[key] : undefined;
      violations.push(
        ...runDeckhouseValidations(value[key], old, property, rootName, options, [...path, key]),
      );
    }
  }
  const where = [rootName, ...path].join(".");
  const rules = rulesOf(schema, where);
  // cel.go compiles every rule in an environment typed by the values (a map is map(string, dyn), a list
  // list(dyn)): a rule that does not type-check refuses the values, whichever rules run now.
  const selfType = celTypeOf(value);
  const oldType = oldValue === undefined || oldValue === null ? celTypeOf(undefined) : celTypeOf(oldValue);
  for (const rule of rules) {
    const problem = celCompileError(rule.expression, selfType, oldType);
    if (problem)
      throw new DeckhouseValidationError(`${where}: compile the '${rule.expression}' rule: ${problem}`);
  }
  for (const rule of rules) {
    if (rule.transition !== (options.rules === "transition")) continue;
    if (rule.transition && (oldValue === undefined || oldValue === null)) continue;
    const bindings: Record<string, CelInput> = { self: toCel(value) };
    if (rule.transition) bindings.oldSelf = toCel(oldValue);
    let result: unknown;
    try {
      result = run(rule.expression, bindings, { funcs: celGoConversions });
    } catch (error) {
      result = error;
    }
    if (isCelError(result) || result instanceof Error) {
      const message = (result as Error).message;
      // cel-go's "no such key" (a missing map key; a field or index of a scalar): cel.go skips the rule.
      // @bufbuild/cel's messages do not tell these from an index outside a list or a string index into a
      // list (which cel-go refuses: goIndexErrorsSkipped); all are skipped, so an error may be admitted,
      // never a value refused that cel-go runs.
      if (/field not found|no such key|out of bounds \[0, -1\)/.test(message)) continue;
      throw new DeckhouseValidationError(`${where}: evaluate the '${rule.expression}' rule: ${message}`);
    }
    if (typeof result !== "boolean") {
      throw new DeckhouseValidationError(`${where}: the '${rule.expression}' rule should return boolean`);
    }
    if (!result) violations.push({ kind: "invalid", path, value, message: rule.message });
  }
  return violations;
}

/**
 * Why the schema's `x-deckhouse-validations` cannot run, at each node runDeckhouseValidations may reach
 * (the root and, recursively, `properties`): a list that is not one, an entry that is not a map or lacks
 * its expression or message, a rule that does not parse or reads an undeclared name. addon-operator then
 * refuses every value of the module. Type errors that only cel-go's checker finds are not seen here.
 */
export function deckhouseValidationProblems(schema: Schema, rootName: string): string[] {
  const problems: string[] = [];
  const visit = (node: Schema, path: string[], seen: Set<Schema>) => {
    if (seen.has(node)) return;
    seen.add(node);
    try {
      rulesOf(node, [rootName, ...path].join("."));
    } catch (error) {
      if (!(error instanceof DeckhouseValidationError)) throw error;
      problems.push(error.message);
    }
    for (const [key, property] of schemaMap(node, "properties")) visit(property, [...path, key], seen);
  };
  visit(schema, [], new Set());
  return problems;
}

/**
 * Whether `x-deckhouse-validations` appears anywhere runDeckhouseValidations may look: the schema and,
 * recursively, its `properties`. When not, it returns no violation and throws nothing for any value, so a
 * caller may skip it. Computed once per schema object (schemas are never changed after loading).
 */
export function hasDeckhouseValidations(schema: Schema): boolean {
  let known = withValidations.get(schema);
  if (known === undefined) {
    known = reachesValidations(schema, new Set());
    withValidations.set(schema, known);
  }
  return known;
}

const withValidations = new WeakMap<Schema, boolean>();

function reachesValidations(schema: Schema, seen: Set<Schema>): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  if (hasKey(schema, "x-deckhouse-validations")) return true;
  return schemaMap(schema, "properties").some(([, property]) => reachesValidations(property, seen));
}
