import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { emptyMap } from "../base/empty-map.js";
import { parseYaml } from "../go/yaml/dialects.js";
import { moduleNameOfDirectory } from "./module-names.js";
import { expandRefs, RefError } from "./refs.js";
import { isMap } from "./schema.js";

/** A directory under the modules dir, as addon-operator discovers it. */
export interface ModuleDirectory {
  directory: string;
  path: string;
  /** The module name: the directory name without its numeric prefix. */
  name: string;
}

/** An entry addon-operator cannot load (it then fails to start): a symlink that loops, an unreadable entry. */
export interface EntryProblem {
  path: string;
  message: string;
}

export interface ModulesListing {
  modules: ModuleDirectory[];
  problems: EntryProblem[];
}

/**
 * The module directories in `modulesDir` as addon-operator's fs loader finds them
 * (pkg/module_manager/loader/fs/fs.go, resolveDirEntry), sorted by name: directories and symlinks to
 * directories. Plain files (`values.yaml`, README.md, .gitkeep) and symlinks to files are skipped, a
 * dangling symlink is ignored (addon-operator logs it), a symlink that cannot be resolved otherwise (a
 * loop) is a problem: addon-operator stops loading modules on it.
 */
export function listModuleDirectories(modulesDir: string): ModulesListing {
  const modules: ModuleDirectory[] = [];
  const problems: EntryProblem[] = [];
  const entries: Dirent[] = readdirSync(modulesDir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(modulesDir, entry.name);
    let isDirectory = entry.isDirectory();
    if (!isDirectory && entry.isSymbolicLink()) {
      try {
        isDirectory = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        problems.push({
          path,
          message: `symlink ${JSON.stringify(entry.name)} cannot be resolved (${code}): addon-operator stops loading modules on it`,
        });
        continue;
      }
    }
    if (isDirectory) modules.push({ directory: entry.name, path, name: moduleNameOfDirectory(entry.name) });
  }
  return { modules, problems };
}

/** A YAML file read as a map: absent, its content, or why it cannot be used (with the line when known). */
export type YamlMapFile =
  | { state: "absent" }
  | { state: "ok"; content: Record<string, unknown> }
  | { state: "invalid"; problem: string; line?: number };

/** A YAML file as sigs.k8s.io/yaml reads it (YAML 1.1), holding a map or nothing. */
export function readYamlMap(path: string): YamlMapFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "absent" };
    return { state: "invalid", problem: `cannot be read: ${(error as Error).message}` };
  }
  const parsed = parseYaml(text, "sigs");
  if ("problem" in parsed) {
    return {
      state: "invalid",
      problem: `is not valid YAML: ${parsed.problem}`,
      ...(parsed.line !== undefined ? { line: parsed.line } : {}),
    };
  }
  if (parsed.value === null || parsed.value === undefined) return { state: "ok", content: emptyMap() };
  if (!isMap(parsed.value)) return { state: "invalid", problem: "must hold a YAML map" };
  return { state: "ok", content: parsed.value };
}

/**
 * A module's (or the global hooks dir's) `openapi/<file>`, read as addon-operator loads a schema: YAML 1.1,
 * then every `$ref` expanded; a ref that does not resolve makes the schema unusable, as it stops
 * addon-operator loading the module.
 */
export function readSchema(dir: string, file: "config-values.yaml" | "values.yaml"): YamlMapFile {
  const path = join(dir, "openapi", file);
  const read = readYamlMap(path);
  if (read.state !== "ok") return read;
  try {
    return { state: "ok", content: expandRefs(read.content, path) };
  } catch (error) {
    if (!(error instanceof RefError)) throw error;
    return { state: "invalid", problem: `cannot be loaded: ${error.message}` };
  }
}
