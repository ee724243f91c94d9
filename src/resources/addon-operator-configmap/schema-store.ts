import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { listModuleDirectories, readSchema } from "../../addon-operator/module-files.js";
import { valuesKeyOf } from "../../addon-operator/module-names.js";
import type { Schema } from "../../addon-operator/schema.js";

/** A section's config-values schema: none (no constraints, as in addon-operator), one, or a broken file. */
export type SectionSchema =
  | { state: "none" }
  | { state: "ok"; schema: Schema }
  | { state: "broken"; problem: string };

export interface LoadedSchemas {
  global: SectionSchema;
  /** By values key (`simpleModule`): the module's name and its config-values schema. */
  modules: Map<string, { name: string; schema: SectionSchema }>;
}

export interface SchemaDirs {
  modulesDir: string;
  globalHooksDir?: string;
}

function sectionSchema(dir: string): SectionSchema {
  const file = readSchema(dir, "config-values.yaml");
  if (file.state === "absent") return { state: "none" };
  if (file.state === "invalid")
    return { state: "broken", problem: `openapi/config-values.yaml ${file.problem}` };
  return { state: "ok", schema: file.content };
}

function loadSchemas(dirs: SchemaDirs): LoadedSchemas {
  const modules = new Map<string, { name: string; schema: SectionSchema }>();
  // Sorted by directory: when two directories give one name, the later wins, as in addon-operator.
  for (const module of listModuleDirectories(dirs.modulesDir)) {
    if (module.directory.startsWith(".")) continue;
    modules.set(valuesKeyOf(module.name), { name: module.name, schema: sectionSchema(module.path) });
  }
  const global: SectionSchema = dirs.globalHooksDir ? sectionSchema(dirs.globalHooksDir) : { state: "none" };
  return { global, modules };
}

/** What identifies the schema files' current versions: directory entries and each file's inode, size and mtime. */
function fingerprint(dirs: SchemaDirs): string {
  const stamp = (path: string) => {
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : "-";
    } catch {
      // ENOTDIR: an entry of the modules dir that is a file (a README), not a module.
      return "-";
    }
  };
  const openapiFile = (dir: string) => join(dir, "openapi", "config-values.yaml");
  let entries: string[];
  try {
    entries = readdirSync(dirs.modulesDir).sort();
  } catch {
    entries = [];
  }
  const parts = entries.map((entry) => `${entry}=${stamp(openapiFile(join(dirs.modulesDir, entry)))}`);
  if (dirs.globalHooksDir) parts.push(`global=${stamp(openapiFile(dirs.globalHooksDir))}`);
  return parts.join("\n");
}

/**
 * The schemas, reloaded when the files change. Each review compares a fingerprint of the files (a stat
 * per module, cheap for the one ConfigMap that is rarely edited) instead of a file watcher: that also
 * sees a mounted ConfigMap's atomic symlink swap, and needs no timing.
 */
export function schemaStore(dirs: SchemaDirs): { current(): LoadedSchemas } {
  let loadedFor: string | undefined;
  let loaded: LoadedSchemas = { global: { state: "none" }, modules: new Map() };
  return {
    current() {
      const now = fingerprint(dirs);
      if (now !== loadedFor) {
        try {
          loaded = loadSchemas(dirs);
        } catch {
          // The modules dir vanished: no modules, so every section gets the unknown-module warning.
          loaded = {
            global: dirs.globalHooksDir ? sectionSchema(dirs.globalHooksDir) : { state: "none" },
            modules: new Map(),
          };
        }
        loadedFor = now;
      }
      return loaded;
    },
  };
}
