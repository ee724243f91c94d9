import { byRule, type FieldError } from "../admission/field-errors.js";
import type { Verdict } from "../admission/resource-kind.js";
import type { RuleId } from "../admission/rule-catalogue.js";
import { ruleWarnings, warningAt } from "../admission/warning.js";
import { FieldPath } from "../base/field-path.js";
import type { WorkBudget } from "../budget/work-budget.js";
import { sameJson } from "../schema/correlation.js";
import type { StructureVerdict } from "./structure.js";

/**
 * A kind's schema check. Given the review's budget, the object's own check is charged to it (and
 * remembered for the review); the gate's checks of the copies it changes are charged to it too, and
 * never remembered (`changing`).
 */
type StructureCheck = (object: unknown, budget: WorkBudget, changing?: boolean) => StructureVerdict;

/** Where the schema check found a value of the wrong shape: its JSON Pointer tokens and the keyword. */
export interface ShapeProblem {
  tokens: string[];
  keyword: string;
}

/** What the rules may read of an object that fails its schema, and how to name their findings. */
export interface ReadablePart<T> {
  /** The object with every value of the wrong shape removed; undefined when nothing can be read. */
  object: T | undefined;
  /** An error found on `object`, with its list indexes as they are in the object checked. */
  restore(error: FieldError): FieldError;
  /**
   * Whether a rule's error on `object` is its own finding: not a field found missing where a value
   * of the wrong shape was removed (`exactly one chart source must be set` where the schema refused
   * the only one), which the schema's error already names.
   */
  keeps(error: FieldError): boolean;
}

/** Which problems a reader must not see: every one, or only values of the wrong type. */
export type Strictness = "any" | "type";

const asItIs = (error: FieldError) => error;
const always = () => true;
const unreadable = { object: undefined, restore: asItIs, keeps: always };

// Each pass removes every value refused, and only an object left without a required field is refused
// in turn: the passes needed are at most the depth of the schema's required fields (5 for the Module:
// spec.helm.chart.repo.url). Each pass is one schema check of the object.
const maxPasses = 8;

/**
 * The part of an object that its schema accepts: what a field-scoped structure gate hands the rules,
 * so that a field of the wrong shape costs only the rules that read it. Each value the schema refuses
 * is removed (a missing required field removes the object that lacks it, a list item is taken out of
 * its list) and the result checked again, until the schema accepts it. Under "type" only values of
 * the wrong type are removed, and nothing more: update-only rules compare what can be read (a string
 * too long is still a string, an object missing a field still has the others), and read a missing
 * field as unset.
 */
export function readablePart<T>(
  object: unknown,
  problemsOf: (object: unknown) => ShapeProblem[],
  strictness: Strictness = "any",
  /** The problems of `object` itself, when its caller has them already. */
  first: ShapeProblem[] = problemsOf(object),
): ReadablePart<T> {
  const relevant = (problems: ShapeProblem[]) =>
    strictness === "any" || problems.length === 0
      ? problems
      : problems.filter((problem) => problem.keyword === "type");
  // A problem at the root (the schema check's list cut short) leaves nothing to read.
  if (first.some((problem) => problem.tokens.length === 0)) return unreadable;
  let problems = relevant(first);
  // The common case, on every review of a valid object: nothing allocated beyond the answer.
  if (problems.length === 0) return { object: object as T, restore: asItIs, keeps: always };
  if (object === null || typeof object !== "object") return unreadable;
  const trimmed = new CopyOnWrite(object);
  const copy = trimmed.root;
  // The indexes each shortened list's items had in the object checked.
  const indexes = new WeakMap<unknown[], number[]>();
  const removed: string[] = [];
  for (let pass = 0; problems.length > 0; pass++) {
    if (pass === maxPasses || !removeAll(trimmed, problems, indexes, removed)) return unreadable;
    problems = relevant(problemsOf(copy));
  }
  const within = (field: string) => (path: string) =>
    path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`) || field === "";
  return {
    object: copy as T,
    restore: (error) => restoreIndexes(error, copy, indexes),
    keeps: (error) => error.type !== "required" || !removed.some(within(error.field.toString())),
  };
}

/** Removes each problem's value (its parent's, for a missing required field); false if that is the root. */
function removeAll(
  trimmed: CopyOnWrite,
  problems: ShapeProblem[],
  indexes: WeakMap<unknown[], number[]>,
  removed: string[],
): boolean {
  const fromLists = new Map<unknown[], Set<number>>();
  // A value inside one that goes anyway is not taken out on its own (nor its container copied first).
  const going = new Set(problems.map((problem) => problem.tokens.join("\u0000")));
  for (const problem of problems) {
    // For a missing required field, `tokens` name the object that lacks it: that object goes.
    const tokens = problem.tokens;
    if (tokens.length === 0) return false;
    if (insideOneOf(going, tokens)) continue;
    removed.push(rendered(trimmed.root, tokens));
    const parent = trimmed.writable(tokens.slice(0, -1));
    const last = tokens[tokens.length - 1] as string;
    if (Array.isArray(parent)) {
      const items = fromLists.get(parent) ?? new Set<number>();
      items.add(Number(last));
      fromLists.set(parent, items);
    } else if (parent !== null && typeof parent === "object") {
      delete (parent as Record<string, unknown>)[last];
    }
  }
  // Linear in each list (a splice per item would be quadratic), and the list stays the same array.
  for (const [list, items] of fromLists) {
    const original = indexes.get(list) ?? list.map((_, i) => i);
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      if (items.has(i)) continue;
      list[kept] = list[i];
      original[kept] = original[i] as number;
      kept++;
    }
    list.length = kept;
    original.length = kept;
    indexes.set(list, original);
  }
  return true;
}

/**
 * The object the gate takes values out of: a container is copied (shallowly, with the path to it) only
 * where something is removed, so that what is left as it is, however large, is shared with the object
 * checked and costs nothing (a structured clone of a 100,000-key map was most of the gate's cost).
 */
class CopyOnWrite {
  readonly root: object;
  private readonly owned = new WeakSet<object>();

  constructor(object: object) {
    this.root = this.copied(object);
  }

  /** The container at `tokens`, this object's own (copied with its path if still shared); else undefined. */
  writable(tokens: string[]): object | undefined {
    let node: object = this.root;
    for (const token of tokens) {
      const child: unknown = Object.hasOwn(node, token)
        ? (node as Record<string, unknown>)[token]
        : undefined;
      if (child === null || typeof child !== "object") return undefined;
      const own = this.owned.has(child) ? child : this.copied(child);
      (node as Record<string, unknown>)[token] = own;
      node = own;
    }
    return node;
  }

  private copied(node: object): object {
    const copy = Array.isArray(node) ? node.slice() : { ...node };
    this.owned.add(copy);
    return copy;
  }
}

/** Whether a value that holds the one at `tokens` (not itself) is in `going`. */
function insideOneOf(going: Set<string>, tokens: string[]): boolean {
  let key = "";
  for (let i = 0; i < tokens.length - 1; i++) {
    key = i === 0 ? (tokens[0] as string) : `${key}\u0000${tokens[i]}`;
    if (going.has(key)) return true;
  }
  return false;
}

/** `["spec", "channels", "2"]` → `spec.channels[2]`, as field errors name fields. */
function rendered(root: unknown, tokens: string[]): string {
  let node = root;
  let path = "";
  for (const token of tokens) {
    path = Array.isArray(node) ? `${path}[${token}]` : path === "" ? token : `${path}.${token}`;
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[token] : undefined;
  }
  return path;
}

/** `spec.channels[1].version` found on the readable part → `spec.channels[2].version` in the object. */
function restoreIndexes(error: FieldError, root: unknown, indexes: WeakMap<unknown[], number[]>): FieldError {
  let node = root;
  let changed = false;
  let field = FieldPath.empty;
  for (const step of error.field.steps) {
    if (step.as === "index" && Array.isArray(node)) {
      const original = indexes.get(node)?.[step.index];
      node = node[step.index];
      if (original !== undefined && original !== step.index) changed = true;
      field = field.index(original ?? step.index);
      continue;
    }
    const name = step.as === "index" ? String(step.index) : step.name;
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[name] : undefined;
    field =
      step.as === "index" ? field.index(step.index) : step.as === "key" ? field.key(name) : field.child(name);
  }
  return changed ? { ...error, field } : error;
}

/**
 * A kind's state rules behind a field-scoped structure gate: the schema's errors (tagged
 * `gateRules.schema`) and the rules' verdict on the part of the object the schema accepts. Fields the
 * schema does not know are warnings of `gateRules.unknownField` (the API server prunes them silently).
 */
export function behindStructureGate<T>(
  check: StructureCheck,
  gateRules: { schema: RuleId; unknownField: RuleId },
  object: unknown,
  rules: (readable: T) => Verdict,
  budget: WorkBudget,
): Verdict {
  const structure = check(object, budget);
  const unknown = ruleWarnings(
    gateRules.unknownField,
    structure.unknownFields.map((field) => warningAt(field, `unknown field "${field}"`)),
  );
  if (structure.errors.length === 0) {
    const verdict = rules(object as T);
    return { errors: verdict.errors, warnings: [...unknown, ...verdict.warnings] };
  }
  const schemaErrors = byRule(gateRules.schema, structure.errors);
  const readable = readablePart<T>(object, (part) => check(part, budget, true).shape, "any", structure.shape);
  if (readable.object === undefined)
    return { errors: schemaErrors, warnings: unknown, unjudged: "structure-gate" };
  const verdict = rules(readable.object);
  return {
    errors: [...schemaErrors, ...verdict.errors.filter(readable.keeps).map(readable.restore)],
    warnings: [...unknown, ...verdict.warnings],
  };
}

/**
 * A kind's update-only rules, never skipped: they read each side's spec as far as its values have the
 * right type (a value of the wrong type reads as unset), and their errors name fields as in the object.
 */
export function onReadableSpecs<S>(
  check: StructureCheck,
  oldObject: unknown,
  object: unknown,
  rules: (oldSpec: S | undefined, spec: S | undefined) => Verdict,
  budget: WorkBudget,
): Verdict {
  const after = readableForUpdate<S>(check, object, budget);
  // A spec the update left as it was reads the same on both sides: read once (the old side of a kept
  // spec of 50,000 wrong-typed labels was checked and cut again, about 36 ms).
  const before = sameSpec(oldObject, object) ? after : readableForUpdate<S>(check, oldObject, budget);
  const verdict = rules(before.object?.spec, after.object?.spec);
  return after.restore === asItIs
    ? verdict
    : { errors: verdict.errors.map(after.restore), warnings: verdict.warnings };
}

function sameSpec(oldObject: unknown, object: unknown): boolean {
  const spec = (side: unknown) =>
    side !== null && typeof side === "object" ? (side as { spec?: unknown }).spec : undefined;
  const oldSpec = spec(oldObject);
  return oldSpec !== undefined && sameJson(oldSpec, spec(object));
}

// Every UPDATE of a valid object comes this way: one schema check per side and nothing more.
function readableForUpdate<S>(check: StructureCheck, side: unknown, budget: WorkBudget) {
  const shape = check(side, budget).shape;
  if (shape.length === 0) return { object: side as { spec?: S } | undefined, restore: asItIs };
  return readablePart<{ spec?: S }>(side, (part) => check(part, budget, true).shape, "type", shape);
}
