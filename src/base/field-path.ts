/** One step of a field path: a field name, a map key (`[app.kubernetes.io/name]`) or a list index. */
export type PathStep =
  | { readonly as: "field"; readonly name: string }
  | { readonly as: "key"; readonly name: string }
  | { readonly as: "index"; readonly index: number };

/**
 * A path to a field, as segments: what ratcheting and the line finder walk, never a string split
 * again. It renders as Kubernetes renders field paths (`spec.helm.releaseName`, `config[2].alias`,
 * `metadata.labels[app.kubernetes.io/name]`) only at the output edge. Immutable: each step returns a
 * new path that shares its parent (a step costs one small object, whatever the depth).
 */
export class FieldPath {
  #rendered: string | undefined;
  #steps: readonly PathStep[] | undefined;

  private constructor(
    readonly parent: FieldPath | undefined,
    readonly step: PathStep | undefined,
  ) {}

  /** The path of the object itself. */
  static readonly empty = new FieldPath(undefined, undefined);

  /** A path from its first field; `root("")` is the object itself. */
  static root(name: string): FieldPath {
    return name === "" ? FieldPath.empty : FieldPath.empty.child(name);
  }

  /** A path from the names and indices a walk went through (numbers are list indices). */
  static of(segments: readonly (string | number)[]): FieldPath {
    let path = FieldPath.empty;
    for (const segment of segments)
      path = typeof segment === "number" ? path.index(segment) : path.child(segment);
    return path;
  }

  child(name: string): FieldPath {
    return new FieldPath(this, { as: "field", name });
  }

  /** A map entry, as apimachinery's Path.Key: `metadata.labels[app.kubernetes.io/name]`. */
  key(name: string): FieldPath {
    return new FieldPath(this, { as: "key", name });
  }

  index(position: number): FieldPath {
    return new FieldPath(this, { as: "index", index: position });
  }

  /** This path followed by `steps`. */
  along(steps: readonly PathStep[]): FieldPath {
    let path: FieldPath = this;
    for (const step of steps) path = new FieldPath(path, step);
    return path;
  }

  /** Whether this is the object itself (no step). */
  get isEmpty(): boolean {
    return this.step === undefined;
  }

  /** The steps from the object down. */
  get steps(): readonly PathStep[] {
    if (this.#steps === undefined) {
      const steps: PathStep[] = [];
      for (let at: FieldPath | undefined = this; at?.step !== undefined; at = at.parent) steps.push(at.step);
      this.#steps = steps.reverse();
    }
    return this.#steps;
  }

  /** The property names along the path (an index as its string), as a value is looked up. */
  get segments(): string[] {
    return this.steps.map((step) => (step.as === "index" ? String(step.index) : step.name));
  }

  /** Whether this path is `parent` or lies below it. */
  within(parent: FieldPath): boolean {
    const own = this.steps;
    const theirs = parent.steps;
    return theirs.length <= own.length && theirs.every((step, i) => sameStep(step, own[i] as PathStep));
  }

  toString(): string {
    // Iterative: a path may be a thousand steps deep.
    if (this.#rendered === undefined) {
      let rendered = "";
      for (const step of this.steps) {
        if (step.as === "field") rendered = rendered === "" ? step.name : `${rendered}.${step.name}`;
        else rendered += `[${step.as === "key" ? step.name : step.index}]`;
      }
      this.#rendered = rendered;
    }
    return this.#rendered;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** Whether two steps are the same: the same index, or the same name (a field and a key alike). */
export function sameStep(a: PathStep, b: PathStep): boolean {
  return a.as === "index" ? b.as === "index" && a.index === b.index : b.as !== "index" && a.name === b.name;
}
