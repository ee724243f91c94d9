/** An example the page offers (made by scripts/build-playground.ts from the repository's examples/). */
export interface Example {
  name: string;
  object: string;
  /** The object before the update: the example is an UPDATE. */
  old?: string;
  /** The bundled module tree (src/playground/trees.ts) ConfigMap/addon-operator is judged against. */
  tree?: string;
}
