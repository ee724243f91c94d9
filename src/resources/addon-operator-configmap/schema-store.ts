import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { listModuleDirectories, readSchema, readYamlMap } from "../../addon-operator/module-files.js";
import { valuesKeyOf } from "../../addon-operator/module-names.js";
import type { Schema } from "../../addon-operator/schema.js";

/** A section's config-values schema: none (no constraints, as in addon-operator), one, or a broken file. */
export type SectionSchema =
  | { state: "none" }
  | { state: "ok"; schema: Schema }
  | { state: "broken"; problem: string };

export interface KnownModule {
  name: string;
  schema: SectionSchema;
  /** `<key>Enabled` from the modules dir's values.yaml or the module's own: the static extender's say. */
  staticEnabled?: boolean;
}

export interface LoadedSchemas {
  global: SectionSchema;
  /** By values key (`simpleModule`). */
  modules: Map<string, KnownModule>;
}

export interface SchemaDirs {
  modulesDir: string;
  globalHooksDir?: string;
  /**
   * How long a check of the files is trusted, in ms (default 1000): within it, reviews use the loaded
   * schemas without stat'ing anything. 0 checks on every review.
   */
  recheckMs?: number;
  /** The clock for `recheckMs` (default: performance.now, monotonic); tests step it by hand. */
  now?: () => number;
}

/** The default of `recheckMs`. */
export const defaultRecheckMs = 1000;

function sectionSchema(dir: string): SectionSchema {
  const file = readSchema(dir, "config-values.yaml");
  if (file.state === "absent") return { state: "none" };
  if (file.state === "invalid")
    return { state: "broken", problem: `openapi/config-values.yaml ${file.problem}` };
  return { state: "ok", schema: file.content };
}

/** `<key>Enabled` in a values.yaml, when it is a boolean there. */
function enabledIn(file: string, key: string): boolean | undefined {
  const read = readYamlMap(file);
  const value = read.state === "ok" ? read.content[`${key}Enabled`] : undefined;
  return typeof value === "boolean" ? value : undefined;
}

function loadSchemas(dirs: SchemaDirs): LoadedSchemas {
  const modules = new Map<string, KnownModule>();
  // Sorted by directory: when two directories give one name, the later wins, as in addon-operator.
  for (const module of listModuleDirectories(dirs.modulesDir).modules) {
    if (module.directory.startsWith(".")) continue;
    const key = valuesKeyOf(module.name);
    const staticEnabled =
      enabledIn(join(module.path, "values.yaml"), key) ??
      enabledIn(join(dirs.modulesDir, "values.yaml"), key);
    modules.set(key, {
      name: module.name,
      schema: sectionSchema(module.path),
      ...(staticEnabled !== undefined ? { staticEnabled } : {}),
    });
  }
  const global: SectionSchema = dirs.globalHooksDir ? sectionSchema(dirs.globalHooksDir) : { state: "none" };
  return { global, modules };
}

/** A file's inode, size and mtime, or "-" when it cannot be stat'ed for any reason (absent, not a dir, a loop). */
function stamp(path: string): string {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : "-";
  } catch {
    return "-";
  }
}

/** What identifies the schema files' current versions: directory entries and their files' stamps. */
function fingerprint(dirs: SchemaDirs): string {
  const files = (dir: string) =>
    ["openapi/config-values.yaml", "values.yaml"].map((file) => stamp(join(dir, file))).join(",");
  let entries: string[];
  try {
    entries = readdirSync(dirs.modulesDir).sort();
  } catch {
    entries = [];
  }
  const parts = entries.map((entry) => `${entry}=${files(join(dirs.modulesDir, entry))}`);
  parts.push(`values=${stamp(join(dirs.modulesDir, "values.yaml"))}`);
  if (dirs.globalHooksDir) parts.push(`global=${files(dirs.globalHooksDir)}`);
  return parts.join("\n");
}

/**
 * The schemas, reloaded when the files change. A fingerprint of the files (a stat per module) is compared
 * instead of a file watcher: that also sees a mounted ConfigMap's atomic symlink swap, and needs no event
 * timing. It is compared at most once per `recheckMs`, not on every review: stat'ing every module
 * directory (~90 in deckhouse) cost more than everything else a review does. A change is therefore seen
 * up to `recheckMs` later, within the delay the kubelet itself takes to update a mounted volume.
 */
export function schemaStore(dirs: SchemaDirs): { current(): LoadedSchemas } {
  const recheckMs = dirs.recheckMs ?? defaultRecheckMs;
  const now = dirs.now ?? (() => performance.now());
  let loadedFor: string | undefined;
  let checkedAt = 0;
  let loaded: LoadedSchemas = { global: { state: "none" }, modules: new Map() };
  return {
    current() {
      if (loadedFor !== undefined && now() - checkedAt < recheckMs) return loaded;
      const fingerprinted = fingerprint(dirs);
      if (fingerprinted !== loadedFor) {
        try {
          loaded = loadSchemas(dirs);
        } catch {
          // The modules dir vanished: no modules, so every section gets the unknown-module warning.
          loaded = {
            global: dirs.globalHooksDir ? sectionSchema(dirs.globalHooksDir) : { state: "none" },
            modules: new Map(),
          };
        }
        loadedFor = fingerprinted;
      }
      // After the check (a load takes a while): the next one is due recheckMs after this one ended.
      checkedAt = now();
      return loaded;
    },
  };
}
