import { FieldPath } from "./field-path.js";

/**
 * How deep an object may nest. The API server's JSON decoder stops at 10,000 levels; rules, JSON
 * Patch diffs and deep comparisons recurse, and at a few thousand levels a recursive function runs out
 * of stack. No Module, chart values or ConfigMap needs more than a few dozen levels, so 1,000 is the
 * bound: deliberately stricter than the API server, and checked before any rule runs.
 */
export const maxDepth = 1000;

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
export function tooDeepAt(object: unknown, max: number = maxDepth): string | undefined {
  if (object === null || typeof object !== "object") return undefined;
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

function render(node: Node): string {
  const steps: (string | number)[] = [];
  for (let at: Node | undefined = node; at?.step !== undefined; at = at.parent) steps.push(at.step);
  let path = FieldPath.root("");
  for (const step of steps.reverse()) path = typeof step === "number" ? path.index(step) : path.child(step);
  return path.toString();
}
