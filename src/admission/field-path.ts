/**
 * A path to a field, rendered as Kubernetes renders field paths: `spec.helm.releaseName`,
 * `config[2].alias`. Immutable: each step returns a new path.
 */
export class FieldPath {
  private constructor(private readonly rendered: string) {}

  static root(name: string): FieldPath {
    return new FieldPath(name);
  }

  child(name: string): FieldPath {
    return new FieldPath(this.rendered === "" ? name : `${this.rendered}.${name}`);
  }

  /** A map entry, as apimachinery's Path.Key: `metadata.labels[app.kubernetes.io/name]`. */
  key(name: string): FieldPath {
    return new FieldPath(`${this.rendered}[${name}]`);
  }

  index(position: number): FieldPath {
    return new FieldPath(`${this.rendered}[${position}]`);
  }

  toString(): string {
    return this.rendered;
  }
}
