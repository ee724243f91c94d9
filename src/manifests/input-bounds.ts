import { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";

/** Why an object read from a file can go no further, and at which field. */
export interface BoundProblem {
  field: FieldPath;
  message: string;
}

class TooDeep extends Error {
  constructor(readonly steps: (string | number)[]) {
    super("too deep");
  }
}

/**
 * What the API server would never receive, found before any layer walks the object: nesting deeper
 * than the webhook judges, or a JSON size over what the API server stores. YAML aliases share nodes
 * (js-yaml resolves an alias to the same object), so a "billion laughs" file is small to read but
 * billions of nodes to walk; sizes and heights here are computed once per shared node, so the check
 * is linear in the file, and its recursion stops at the depth bound.
 */
export function inputBoundProblem(object: unknown): BoundProblem | undefined {
  // Most objects share no node: one walk of the tree, without the tables, settles them. Where it finds
  // a value at the depth bound, or walks more nodes than a manifest holds (aliases repeating a node),
  // the walk below, once per shared node, gives the answer and its path.
  const size = treeSize(object);
  if (size !== undefined && size <= limits.objectBytes) return undefined;
  const heights = new Map<object, number>();
  const sizes = new Map<object, number>();
  // The path to the node being measured: one array, pushed and popped.
  const steps: (string | number)[] = [];
  const measure = (value: unknown): number => {
    if (value === null || typeof value !== "object") return jsonSize(value);
    const known = sizes.get(value);
    if (known !== undefined) {
      if (steps.length + (heights.get(value) ?? 0) > limits.depth) throw new TooDeep([...steps]);
      return known;
    }
    if (steps.length >= limits.depth) throw new TooDeep([...steps]);
    // Marked before its children: an alias to an ancestor (a cycle) is as deep as the bound.
    sizes.set(value, Number.POSITIVE_INFINITY);
    heights.set(value, limits.depth);
    let size = 2;
    let height = 0;
    const visit = (step: string | number, child: unknown) => {
      steps.push(step);
      size += measure(child) + (typeof step === "string" ? jsonSize(step) + 2 : 1);
      steps.pop();
      if (child !== null && typeof child === "object")
        height = Math.max(height, (heights.get(child) ?? 0) + 1);
    };
    if (Array.isArray(value)) for (const [i, item] of value.entries()) visit(i, item);
    else for (const key of Object.keys(value)) visit(key, (value as Record<string, unknown>)[key]);
    sizes.set(value, size);
    heights.set(value, height);
    return size;
  };
  try {
    const size = measure(object);
    if (size > limits.objectBytes) {
      return {
        field: FieldPath.empty,
        message: `Request entity too large: limit is ${limits.objectBytes} (the API server's answer; the object is about ${size} bytes as JSON, YAML aliases expanded)`,
      };
    }
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    return {
      field: FieldPath.of(error.steps),
      message: `nested more than ${limits.depth} levels deep (YAML aliases expanded); not judged further`,
    };
  }
  return undefined;
}

/** Nodes the tree walk visits before it leaves the answer to the walk once per shared node. */
const treeWalkNodes = 100_000;

/**
 * The object's JSON size walked as a tree (a node an alias repeats counted each time, as the walk once
 * per shared node counts it), or undefined when a value lies at the depth bound or the walk passes
 * `treeWalkNodes`. Where it answers, inputBoundProblem's own walk finds the same size and nothing too deep.
 */
function treeSize(object: unknown): number | undefined {
  let nodes = 0;
  const measure = (value: unknown, depth: number): number => {
    if (value === null || typeof value !== "object") return jsonSize(value);
    if (depth >= limits.depth || ++nodes > treeWalkNodes) return Number.NaN;
    let size = 2;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) size += measure(value[i], depth + 1) + 1;
    } else {
      for (const key of Object.keys(value))
        size += measure((value as Record<string, unknown>)[key], depth + 1) + jsonSize(key) + 2;
    }
    return size;
  };
  const size = measure(object, 0);
  return Number.isNaN(size) ? undefined : size;
}

function jsonSize(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number") return String(value).length;
  return 5; // true, false, null
}
