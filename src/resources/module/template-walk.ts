import type { FieldPath } from "../../base/field-path.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import { hasTemplate } from "../../go/template/index.js";

/** Units of the work budget each entry of a map or list walked to find templates costs. */
const entryUnits = 3;

/**
 * Where a node's rendered path ends, as far as the free-form rule needs: `….values`, `….outputs`, an
 * element of either (`….values[3]`), anything else, or inside a free-form field already.
 */
const Tail = { Other: 0, ValuesList: 1, OutputsList: 2, ValuesItem: 3, OutputsItem: 4, FreeForm: 5 } as const;
type Tail = (typeof Tail)[keyof typeof Tail];

const valuesItemKey = /\.values\[\d+\]$/;
const outputsItemKey = /\.outputs\[\d+\]$/;

/**
 * The tail of a path whose last step is `.key`. A key step starts with the only dot `.values[3]`
 * has, so the whole of `.values[3]` (or `.values`) falls within `.key`: the key alone decides.
 */
function keyTail(key: string): Tail {
  if (key.endsWith("]")) {
    const step = `.${key}`;
    return valuesItemKey.test(step)
      ? Tail.ValuesItem
      : outputsItemKey.test(step)
        ? Tail.OutputsItem
        : Tail.Other;
  }
  if (key === "values" || key.endsWith(".values")) return Tail.ValuesList;
  if (key === "outputs" || key.endsWith(".outputs")) return Tail.OutputsList;
  return Tail.Other;
}

/** Nesting walked by recursion; deeper values (never seen in a real chart) are walked iteratively. */
const recursionLimit = 200;

/**
 * Where a template was found, as the walk is there: its path is built only when asked, since most
 * templates' checks never show it (a path of `values[7].raw.a.b` is four objects, and a chart's
 * values may hold 100,000 templates). Valid only during the visit it is passed to: the walk moves on.
 */
export interface TemplateSite {
  /** The template's path (the same object each time it is asked during one visit). */
  path(): FieldPath;
  /** Whether the template is the root's own field `name` (spec.helm.namespace), without building its path. */
  isRootField(name: string): boolean;
}

/**
 * Every string value under `root` that has a template (map keys are not rendered), where it is and
 * whether it sits in a free-form field (values[].raw, outputs[].value), which keeps whatever type the
 * string decodes to. A path is built only when the visit asks for it, from the steps to it; the
 * free-form rule reads the end of a path (which key, which list) from its last steps. A deeply nested
 * raw value cannot exhaust the stack: beyond `recursionLimit` levels the walk goes on iteratively.
 */
export function forEachTemplate(
  root: unknown,
  rootPath: FieldPath,
  budget: WorkBudget,
  visit: (text: string, site: TemplateSite, freeForm: boolean) => void,
): void {
  if (typeof root === "string") {
    if (hasTemplate(root)) visit(root, { path: () => rootPath, isRootField: () => false }, false);
    return;
  }
  // The roots, spec.helm and spec.custom, are no list and no element of one.
  if (root !== null && typeof root === "object")
    new TemplateWalk(rootPath, budget, visit).walk(root, Tail.Other, 0);
}

class TemplateWalk {
  /** The keys and positions from the root to the value being visited (the first `depth` of them). */
  private readonly steps: (string | number)[] = [];
  /**
   * `paths[d]` is the path of the first `d` steps, for every `d` up to `valid`: a template's path is
   * built from its parent's, one step, as long as the steps above it have not changed since.
   */
  private readonly paths: FieldPath[];
  private valid = 0;
  /**
   * Whether for...in lists exactly Object.keys for an object whose prototype is Object.prototype:
   * it does unless something made a property of Object.prototype enumerable. for...in reads each
   * value through V8's enum cache, where Object.keys would read it by a looked-up key.
   */
  private readonly forInIsOwnKeys = !hasEnumerableKey(Object.prototype);
  /** The steps to the template being visited: the first `siteLength` of `steps`. */
  private siteLength = 0;
  /** The one site every visit is passed (one object per walk, not one per template). */
  private readonly site: TemplateSite = {
    path: () => this.path(this.siteLength),
    isRootField: (name) => this.siteLength === 1 && this.steps[0] === name,
  };

  constructor(
    rootPath: FieldPath,
    private readonly budget: WorkBudget,
    private readonly visit: (text: string, site: TemplateSite, freeForm: boolean) => void,
  ) {
    this.paths = [rootPath];
  }

  /** Visits the template `text` whose path is the first `length` steps. */
  private found(text: string, length: number, freeForm: boolean): void {
    this.siteLength = length;
    this.visit(text, this.site, freeForm);
  }

  private step(depth: number, step: string | number): void {
    this.steps[depth] = step;
    if (this.valid > depth) this.valid = depth;
  }

  /** Each entry of a map or list looked at (a string scanned for `{{` and `}}` is paid when it has both). */
  private entries(n: number): void {
    this.budget.charge(entryUnits * n, "finding templates");
  }

  walk(node: object, tail: Tail, depth: number): void {
    if (depth >= recursionLimit) {
      this.walkIteratively(node, tail, depth);
      return;
    }
    if (Array.isArray(node)) {
      this.entries(node.length);
      const childTail = elementTail(tail);
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === "string") {
          if (!hasTemplate(child)) continue;
          this.step(depth, i);
          this.found(child, depth + 1, childTail === Tail.FreeForm);
        } else if (child !== null && typeof child === "object") {
          this.step(depth, i);
          this.walk(child, childTail, depth + 1);
        }
      }
      return;
    }
    const proto = Object.getPrototypeOf(node);
    let n = 0;
    if (proto === null || (proto === Object.prototype && this.forInIsOwnKeys)) {
      for (const key in node) {
        this.entry(key, (node as Record<string, unknown>)[key], tail, depth);
        n++;
      }
    } else {
      for (const key of Object.keys(node)) {
        this.entry(key, (node as Record<string, unknown>)[key], tail, depth);
        n++;
      }
    }
    this.entries(n);
  }

  private entry(key: string, child: unknown, tail: Tail, depth: number): void {
    if (typeof child === "string") {
      if (!hasTemplate(child)) return;
      this.step(depth, key);
      this.found(child, depth + 1, memberTail(key, tail) === Tail.FreeForm);
    } else if (child !== null && typeof child === "object") {
      this.step(depth, key);
      this.walk(child, memberTail(key, tail), depth + 1);
    }
  }

  /**
   * The same walk without recursion, below `base` steps: the maps and lists open, innermost last, in
   * parallel stacks (`open` of them in use): the node, its keys (none for a list), the position of
   * the child being visited, and the node's tail.
   */
  private walkIteratively(root: object, rootTail: Tail, base: number): void {
    const nodes: object[] = [root];
    const keyLists: (string[] | undefined)[] = [Array.isArray(root) ? undefined : Object.keys(root)];
    this.entries(Array.isArray(root) ? root.length : (keyLists[0] as string[]).length);
    const positions: number[] = [-1];
    const tails: Tail[] = [rootTail];
    let open = 1;
    while (open > 0) {
      const top = open - 1;
      const node = nodes[top] as object;
      const keys = keyLists[top];
      const tail = tails[top] as Tail;
      const position = (positions[top] as number) + 1;
      positions[top] = position;
      let child: unknown;
      let childTail: Tail;
      if (keys === undefined) {
        if (position >= (node as unknown[]).length) {
          open--;
          continue;
        }
        child = (node as unknown[])[position];
        this.step(base + top, position);
        childTail = elementTail(tail);
      } else {
        if (position >= keys.length) {
          open--;
          continue;
        }
        const key = keys[position] as string;
        child = (node as Record<string, unknown>)[key];
        this.step(base + top, key);
        childTail = memberTail(key, tail);
      }
      if (typeof child === "string") {
        if (hasTemplate(child)) this.found(child, base + open, childTail === Tail.FreeForm);
      } else if (child !== null && typeof child === "object") {
        nodes[open] = child;
        keyLists[open] = Array.isArray(child) ? undefined : Object.keys(child);
        this.entries(Array.isArray(child) ? child.length : (keyLists[open] as string[]).length);
        positions[open] = -1;
        tails[open] = childTail;
        open++;
      }
    }
  }

  /** The path of the first `length` steps: the known part of it, and one step for each changed. */
  private path(length: number): FieldPath {
    const paths = this.paths;
    for (let i = Math.min(this.valid, length); i < length; i++) {
      const step = this.steps[i] as string | number;
      const parent = paths[i] as FieldPath;
      paths[i + 1] = typeof step === "number" ? parent.index(step) : parent.child(step);
    }
    if (length > this.valid) this.valid = length;
    return paths[length] as FieldPath;
  }
}

/** The tail of an element of a list with tail `tail`. */
const elementTail = (tail: Tail): Tail =>
  tail === Tail.FreeForm
    ? Tail.FreeForm
    : tail === Tail.ValuesList
      ? Tail.ValuesItem
      : tail === Tail.OutputsList
        ? Tail.OutputsItem
        : Tail.Other;

/** The tail of the member `key` of a map with tail `tail`: values[N].raw and outputs[N].value are free-form. */
const memberTail = (key: string, tail: Tail): Tail =>
  tail === Tail.FreeForm ||
  (key === "raw" && tail === Tail.ValuesItem) ||
  (key === "value" && tail === Tail.OutputsItem)
    ? Tail.FreeForm
    : keyTail(key);

function hasEnumerableKey(object: object): boolean {
  for (const _ in object) return true;
  return false;
}
