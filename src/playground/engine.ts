/**
 * The playground's verdict: `validate`'s batch engine (src/offline/validate-batch.ts) on the text of
 * the page's editors, with the options the CLI would be given: `--yaml <client>`, `--old`,
 * `--show-mutations`, and `--modules-dir`/`--global-hooks-dir` for the module tree chosen (a bundled
 * example, or a folder the visitor picked, read into the page's file system).
 */

import type { YamlReader } from "../manifests/yaml-readings.js";
import { type OfflineAddonOperator, offlineAddonOperator } from "../offline/addon-operator.js";
import { type BatchResult, validateBatch } from "../offline/validate-batch.js";
import { existsSync, mount } from "./node/fs.js";
import { bundledTrees, type ModuleTree } from "./trees.js";

/** Everything the page's verdict depends on: what the share link holds. */
export interface PlaygroundState {
  object: string;
  /** The object before the update; empty for a create. */
  old: string;
  client: YamlReader;
  /**
   * The module tree ConfigMap/addon-operator is judged against: a bundled tree's id, `folder:<name>`
   * for a picked folder, or empty (not judged: no --modules-dir).
   */
  tree: string;
}

/** The file names findings carry, as `validate --stdin-filename object.yaml -` names its input. */
export const objectFile = "object.yaml";
export const oldFile = "old.yaml";

/** Where the build embeds the repository's files (the engine's modules believe they are there too). */
const virtualRoot = "/playground";
/** Where a picked folder is read into. */
const foldersRoot = `${virtualRoot}/folders`;

/** The picked folder's tree, if any (one at a time: picking another replaces it). */
let folderTree: ModuleTree | undefined;
const kinds = new Map<string, OfflineAddonOperator | undefined>();

/** A file of a picked folder, by its path from the folder's name (`deckhouse/modules/x/openapi/...`). */
export interface FolderFile {
  path: string;
  text: string;
}

/**
 * What of a picked folder the engine reads: every file under an `openapi/` directory (the schemas, and
 * what their `$ref`s name) and every `values.yaml` (the `<module>Enabled` defaults); nothing else of a
 * module (templates, hooks, images) is read, so nothing else is loaded into the page.
 */
export function isTreeFile(path: string): boolean {
  const parts = path.split("/");
  return parts.at(-1) === "values.yaml" || parts.slice(0, -1).includes("openapi");
}

/**
 * Reads a picked folder's files into the page's file system and makes it the folder tree: its
 * `modules/` (and `global-hooks/`) when it has one, as a deckhouse or addon-operator checkout does,
 * else the folder itself is the modules dir. Returns the tree.
 */
export function mountFolder(name: string, files: readonly FolderFile[]): ModuleTree {
  if (files.some((file) => !file.path.startsWith(`${name}/`)))
    throw new Error(`the files of the folder ${name} are not all under it`);
  const dir = `${foldersRoot}/${name}`;
  mount(
    foldersRoot,
    files
      .filter((file) => isTreeFile(file.path))
      .map((file) => ({ path: `${foldersRoot}/${file.path}`, text: file.text })),
  );
  const nested = existsSync(`${dir}/modules`);
  folderTree = {
    id: `folder:${name}`,
    name: `${name} (a folder of this computer)`,
    modulesDir: nested ? `${dir}/modules` : dir,
    ...(nested && existsSync(`${dir}/global-hooks`) ? { globalHooksDir: `${dir}/global-hooks` } : {}),
  };
  for (const key of kinds.keys()) if (key.startsWith("folder:")) kinds.delete(key);
  return folderTree;
}

/** A picked folder's directory as the visitor knows it: from the folder's name on. */
export function folderPathShown(dir: string): string {
  return dir.startsWith(`${foldersRoot}/`) ? dir.slice(foldersRoot.length + 1) : dir;
}

/** Where a tree's directories are in the page's file system (a bundled tree's under the root). */
function treeDirs(tree: ModuleTree): { "modules-dir": string; "global-hooks-dir"?: string } {
  const at = (dir: string) => (tree.id.startsWith("folder:") ? dir : `${virtualRoot}/${dir}`);
  return {
    "modules-dir": at(tree.modulesDir),
    ...(tree.globalHooksDir ? { "global-hooks-dir": at(tree.globalHooksDir) } : {}),
  };
}

function addonOperatorFor(id: string): OfflineAddonOperator | undefined {
  if (id === "") return undefined;
  if (kinds.has(id)) return kinds.get(id);
  const tree =
    bundledTrees.find((bundled) => bundled.id === id) ?? (folderTree?.id === id ? folderTree : undefined);
  if (!tree)
    throw new Error(
      id.startsWith("folder:")
        ? `the module tree ${id.slice("folder:".length)} is a folder on the computer it was picked on: pick it here with "Module tree from a folder"`
        : `no bundled module tree ${JSON.stringify(id)}`,
    );
  const kind = offlineAddonOperator(treeDirs(tree));
  kinds.set(id, kind);
  return kind;
}

export function judgeState(state: PlaygroundState): Promise<BatchResult> {
  const addonOperator = addonOperatorFor(state.tree);
  return validateBatch({
    inputs: [{ file: objectFile, text: state.object }],
    old: state.old.trim() === "" ? [] : [{ file: oldFile, text: state.old }],
    strict: false,
    showMutations: true,
    yamlReader: state.client,
    ...(addonOperator ? { addonOperator } : {}),
  });
}
