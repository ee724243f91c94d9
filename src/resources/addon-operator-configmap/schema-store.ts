import { statSync } from "node:fs";
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

interface ModuleEntry {
  name: string;
  path: string;
  /** The schema file's version when `schema` was read (see `stamp`). */
  stamp: string;
  schema: SectionSchema;
}

const openapiFile = (dir: string) => join(dir, "openapi", "config-values.yaml");

/** A file's version: inode, size and mtime; "-" when there is none (or a path part is a file). */
function stamp(path: string): string {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : "-";
  } catch {
    // ENOTDIR: an entry of the modules dir that is a file (a README), not a module.
    return "-";
  }
}

function loadModules(modulesDir: string): Map<string, ModuleEntry> {
  const modules = new Map<string, ModuleEntry>();
  let directories: ReturnType<typeof listModuleDirectories>;
  try {
    directories = listModuleDirectories(modulesDir);
  } catch {
    // The modules dir vanished: no modules, so every section gets the unknown-module warning.
    return modules;
  }
  // Sorted by directory: when two directories give one name, the later wins, as in addon-operator.
  for (const module of directories) {
    if (module.directory.startsWith(".")) continue;
    // The stamp is taken before the file is read: a change in between is seen by the next review.
    const version = stamp(openapiFile(module.path));
    modules.set(valuesKeyOf(module.name), {
      name: module.name,
      path: module.path,
      stamp: version,
      schema: sectionSchema(module.path),
    });
  }
  return modules;
}

/**
 * The schemas, reloaded when the files change, checked on every review instead of by a file watcher
 * (that also sees a mounted ConfigMap's atomic symlink swap, and needs no timing): the inode, size and
 * mtime of the modules dir and of the schema files the review uses (`keys`: the sections of the
 * ConfigMap under review), not of every module's.
 */
export function schemaStore(dirs: SchemaDirs): { current(keys: Iterable<string>): LoadedSchemas } {
  let listed: string | undefined;
  let modules = new Map<string, ModuleEntry>();
  let global: { stamp: string; schema: SectionSchema } | undefined;
  return {
    current(keys) {
      // Adding, removing or renaming a module directory changes the modules dir's mtime; a symlink
      // swapped to another directory changes its inode.
      const now = stamp(dirs.modulesDir);
      if (now !== listed) {
        modules = loadModules(dirs.modulesDir);
        listed = now;
      } else {
        for (const key of keys) {
          const module = modules.get(key);
          if (!module) continue;
          const version = stamp(openapiFile(module.path));
          if (version !== module.stamp) {
            module.stamp = version;
            module.schema = sectionSchema(module.path);
          }
        }
      }
      if (dirs.globalHooksDir) {
        const version = stamp(openapiFile(dirs.globalHooksDir));
        if (version !== global?.stamp)
          global = { stamp: version, schema: sectionSchema(dirs.globalHooksDir) };
      }
      return { global: global?.schema ?? { state: "none" }, modules };
    },
  };
}
