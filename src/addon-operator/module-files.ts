import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { moduleNameOfDirectory } from "./module-names.js";
import { isMap } from "./schema.js";

/** A directory under the modules dir, as addon-operator discovers it. */
export interface ModuleDirectory {
  directory: string;
  path: string;
  /** The module name: the directory name without its numeric prefix. */
  name: string;
}

/** The module directories in `modulesDir`, sorted by directory name (addon-operator's order). */
export function listModuleDirectories(modulesDir: string): ModuleDirectory[] {
  return readdirSync(modulesDir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(modulesDir, entry.name))),
    )
    .map((entry) => entry.name)
    .sort()
    .map((directory) => ({
      directory,
      path: join(modulesDir, directory),
      name: moduleNameOfDirectory(directory),
    }));
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** A YAML file read as a map: absent, its content, or why it cannot be used (with the line when known). */
export type YamlMapFile =
  | { state: "absent" }
  | { state: "ok"; content: Record<string, unknown> }
  | { state: "invalid"; problem: string; line?: number };

export function readYamlMap(path: string): YamlMapFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "absent" };
    return { state: "invalid", problem: `cannot be read: ${(error as Error).message}` };
  }
  let content: unknown;
  try {
    content = load(text);
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    return {
      state: "invalid",
      problem: `is not valid YAML: ${reason}`,
      ...(mark?.line !== undefined ? { line: mark.line + 1 } : {}),
    };
  }
  if (content === null || content === undefined) return { state: "ok", content: {} };
  if (!isMap(content)) return { state: "invalid", problem: "must hold a YAML map" };
  return { state: "ok", content };
}

/** A module's (or the global hooks dir's) `openapi/<file>`, read as a schema. */
export function readSchema(dir: string, file: "config-values.yaml" | "values.yaml"): YamlMapFile {
  return readYamlMap(join(dir, "openapi", file));
}
