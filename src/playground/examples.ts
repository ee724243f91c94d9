/** An example the page offers (made by scripts/build-playground.ts from the repository's examples/). */
export interface Example {
  name: string;
  object: string;
  /** The object before the update: the example is an UPDATE. */
  old?: string;
  /** Judged against the example addon-operator module tree (examples/addon-operator/modules). */
  modules?: boolean;
}
