/**
 * The addon-operator module trees the page bundles (the repository's own, under examples/: the build
 * embeds each one's files), for judging ConfigMap/addon-operator as `validate --modules-dir DIR
 * [--global-hooks-dir DIR]` does. A tree of the visitor's own is picked as a folder instead.
 */
export interface ModuleTree {
  /** What the page's select and share link name it by. */
  id: string;
  name: string;
  /** Under the repository's root: embedded at /playground/<dir> (src/playground/node/fs.ts). */
  modulesDir: string;
  globalHooksDir?: string;
}

export const bundledTrees: readonly ModuleTree[] = [
  {
    id: "echo",
    name: "one module (examples/addon-operator)",
    modulesDir: "examples/addon-operator/modules",
  },
  {
    id: "cluster",
    name: "global hooks and three modules (examples/addon-operator-cluster)",
    modulesDir: "examples/addon-operator-cluster/modules",
    globalHooksDir: "examples/addon-operator-cluster/global-hooks",
  },
];
