import { createHash } from "node:crypto";
import { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";

/** How deep an object may nest (see `limits.depth`). */
const maxDepth = limits.depth;

interface Node {
  value: object;
  depth: number;
  parent?: Node;
  step?: string | number;
}

/**
 * The path of the first value nested deeper than `max` levels (the object itself is level 0), or
 * undefined. Iterative, so that the check itself cannot overflow the stack; linear in the object, and
 * a path is rendered only for the value found.
 */
export function tooDeepAt(object: unknown, max: number = maxDepth): FieldPath | undefined {
  if (object === null || typeof object !== "object") return undefined;
  if (max >= maxDepth && shallow.has(object)) return undefined;
  // Every review walks its object once: the walk that keeps no path is the one paid for each time.
  if (!nestsDeeperThan(object, max)) return undefined;
  return firstTooDeep(object, max);
}

/** Objects parsed from a text that nests less than `maxDepth` levels, so no value in them nests deeper. */
const shallow = new WeakSet<object>();

/**
 * Vouches for `values`, parsed from JSON `text` and not changed since, when the whole text nests less
 * than `maxDepth` levels: `tooDeepAt` then needs no walk of them. Scanning the text's brackets costs a
 * tenth of walking the objects it makes (a map of 100,000 keys: about 20 ms of walking).
 */
export function vouchForDepth(text: string, ...values: unknown[]): void {
  if (!opensFewerThan(text, maxDepth) && jsonNesting(text) >= maxDepth) return;
  vouchForNesting(0, ...values);
}

/** `vouchForDepth` for values parsed from a text already known to nest `nesting` levels (`textShape`). */
export function vouchForNesting(nesting: number, ...values: unknown[]): void {
  if (nesting >= maxDepth) return;
  for (const value of values) if (value !== null && typeof value === "object") shallow.add(value);
}

/**
 * Whether the text holds fewer than `count` opening brackets (those in strings counted too), so that
 * it cannot nest `count` levels: found by the runtime's native search, a few nanoseconds per bracket,
 * where scanning every character (`jsonNesting`) costs more than walking a small review's objects.
 */
function opensFewerThan(text: string, count: number): boolean {
  let opened = 0;
  for (const bracket of ["{", "["]) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++opened >= count) return false;
    }
  }
  return true;
}

/** How deep valid JSON text nests: its most brackets open at once, those inside strings not counted. */
export function jsonNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: to its closing quote, found by the runtime's native search (most of a body's
      // characters are in strings), one not escaped: preceded by an even run of backslashes.
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote === -1) return deepest;
        let backslashes = 0;
        while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
        i = quote;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return deepest;
}

/**
 * Whether any value lies `max` levels deep or deeper: the same search with two stacks of plain values
 * and no path, which allocates nothing per node.
 */
function nestsDeeperThan(root: object, max: number): boolean {
  const values: object[] = [root];
  const depths: number[] = [0];
  for (let value = values.pop(); value !== undefined; value = values.pop()) {
    const depth = depths.pop() as number;
    if (depth >= max) return true;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item !== null && typeof item === "object") {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item !== null && typeof item === "object") {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** The first value found `max` levels deep, with the steps that lead to it. */
function firstTooDeep(object: object, max: number): FieldPath | undefined {
  const stack: Node[] = [{ value: object, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.depth >= max) return render(node);
    // Only containers are pushed (a million numbers cost nothing but the look); the order of the
    // search does not matter for finding some value too deep.
    const push = (step: string | number, value: unknown) => {
      if (value !== null && typeof value === "object")
        stack.push({ value, depth: node.depth + 1, parent: node, step });
    };
    if (Array.isArray(node.value)) for (const [i, item] of node.value.entries()) push(i, item);
    else for (const key in node.value) push(key, (node.value as Record<string, unknown>)[key]);
  }
  return undefined;
}

function render(node: Node): FieldPath {
  const steps: (string | number)[] = [];
  for (let at: Node | undefined = node; at?.step !== undefined; at = at.parent) steps.push(at.step);
  return FieldPath.of(steps.reverse());
}

/** An object cut where it nests too deep, and where: each cut value is a fingerprint of what was there. */
export interface CutObject {
  object: unknown;
  /** Rendered field path → where, and a fingerprint of the value cut there. */
  cuts: Map<string, { field: FieldPath; mark: string }>;
}

/**
 * A copy of `object` with every value `max` levels deep replaced by a fingerprint of it (a string),
 * so that rules may read the rest and an update can tell an unchanged deep value from a changed one.
 * Iterative, as `tooDeepAt`; linear in the object.
 */
export function cutTooDeep(object: unknown, max: number = maxDepth): CutObject {
  const cuts: CutObject["cuts"] = new Map();
  if (object === null || typeof object !== "object") return { object, cuts };
  const copyOf = (value: object) => (Array.isArray(value) ? [] : {}) as Record<string, unknown>;
  const root = copyOf(object);
  const stack: { node: Node; copy: Record<string, unknown> }[] = [
    { node: { value: object, depth: 0 }, copy: root },
  ];
  while (stack.length > 0) {
    const { node, copy } = stack.pop() as { node: Node; copy: Record<string, unknown> };
    const visit = (step: string | number, value: unknown) => {
      if (value === null || typeof value !== "object") {
        copy[step] = value;
        return;
      }
      const child: Node = { value, depth: node.depth + 1, parent: node, step };
      if (child.depth >= max) {
        const mark = `<nested more than ${max} levels deep: ${fingerprint(value)}>`;
        const field = render(child);
        cuts.set(field.toString(), { field, mark });
        copy[step] = mark;
        return;
      }
      const childCopy = copyOf(value);
      copy[step] = childCopy;
      stack.push({ node: child, copy: childCopy });
    };
    if (Array.isArray(node.value)) for (const [i, item] of node.value.entries()) visit(i, item);
    else for (const key in node.value) visit(key, (node.value as Record<string, unknown>)[key]);
  }
  return { object: root, cuts };
}

/** A SHA-256 of a value's JSON-like serialization, computed without recursion (JSON.stringify recurses). */
function fingerprint(value: object): string {
  const hash = createHash("sha256");
  const pending: unknown[] = [value];
  const token = Symbol("token");
  type Token = { [token]: string };
  const literal = (text: string): Token => ({ [token]: text });
  while (pending.length > 0) {
    const next = pending.pop();
    if (next !== null && typeof next === "object" && token in next) {
      hash.update((next as Token)[token]);
    } else if (Array.isArray(next)) {
      hash.update("[");
      pending.push(literal("]"));
      for (let i = next.length - 1; i >= 0; i--) pending.push(literal(","), next[i]);
    } else if (next !== null && typeof next === "object") {
      hash.update("{");
      pending.push(literal("}"));
      const keys = Object.keys(next);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        pending.push(
          literal(","),
          (next as Record<string, unknown>)[key],
          literal(`${JSON.stringify(key)}:`),
        );
      }
    } else {
      hash.update(JSON.stringify(next) ?? "undefined");
    }
  }
  return hash.digest("hex").slice(0, 16);
}
