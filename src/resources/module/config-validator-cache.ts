import type { ConfigItem } from "../../generated/module.js";
import { type ConfigSchemaVerdict, validateConfigSchema } from "./config-schema-rules.js";
import { type ConfigValuesVerdict, compileConfigValues, type ModuleSource } from "./config-values-rules.js";

/** Everything the config rules need from one config schema, worked out once. */
export interface ConfigValidator {
  /** What is wrong with the config schema itself (the top-level `config`). */
  schema: ConfigSchemaVerdict;
  /** spec.config against that schema. */
  validateValues(values: Record<string, unknown>, source: ModuleSource): ConfigValuesVerdict;
}

interface Entry {
  /** A private copy of the schema the validator was compiled from. */
  items: ConfigItem[];
  validator: ConfigValidator;
  bytes: number;
}

/**
 * Many Modules share one config schema (one chart, many namespaces): an LRU cache of compiled
 * validators, bounded by bytes rather than entries, since one schema can be a few KB or 3 MiB. An entry
 * is reckoned at 16 bytes per character of the schema's JSON: the copy of the schema the validator keeps
 * and what it derives from it measured 12 to 15 (128-item schemas; compiled regexes are in the RE2
 * cache, bounded on its own). It is looked up by the schema's aliases and a hit is confirmed by comparing
 * the schema with the cached copy, which stops at the first difference: no serialization of the whole
 * schema on every review (the JSON is measured only on a miss). At most `variantLimit` schemas per
 * list of aliases.
 */
const cache = new Map<string, Entry[]>();
export const cacheBytesLimit = 32 * 1024 * 1024;
const variantLimit = 8;
let cachedBytes = 0;
let cacheEnabled = true;

/** The validator for a config schema, from the cache when the same schema was seen recently. */
export function configValidator(items: ConfigItem[]): ConfigValidator {
  if (!cacheEnabled) return compileConfigValidator(items);
  const key = items.map((item) => item.alias).join("\n");
  const variants = cache.get(key);
  const hit = variants?.find((variant) => sameJson(variant.items, items));
  if (variants && hit) {
    // Most recently used last among the lists, first within one: the least recently used goes first.
    cache.delete(key);
    variants.splice(variants.indexOf(hit), 1);
    variants.unshift(hit);
    cache.set(key, variants);
    return hit.validator;
  }
  // Compiled from a copy: the cached validator must not change when the caller's object does.
  const copy = structuredClone(items);
  const validator = compileConfigValidator(copy);
  const bytes = JSON.stringify(items).length * 16;
  // A schema too large to share the cache with others is not kept.
  if (bytes > cacheBytesLimit / 4) return validator;
  while (cache.size > 0 && cachedBytes + bytes > cacheBytesLimit) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, Entry[]];
    cachedBytes -= (oldest.pop() as Entry).bytes;
    if (oldest.length === 0) cache.delete(oldestKey);
  }
  const list = cache.get(key) ?? [];
  cache.delete(key);
  list.unshift({ items: copy, validator, bytes });
  if (list.length > variantLimit) cachedBytes -= (list.pop() as Entry).bytes;
  cache.set(key, list);
  cachedBytes += bytes;
  return validator;
}

/** What the cache holds by its own reckoning, for the test of its bound. */
export function configValidatorCacheBytes(): number {
  return cachedBytes;
}

/** For the benchmark, which measures with and without the cache. */
export function setConfigValidatorCache(enabled: boolean): void {
  cacheEnabled = enabled;
  cache.clear();
  cachedBytes = 0;
}

function compileConfigValidator(items: ConfigItem[]): ConfigValidator {
  return { schema: validateConfigSchema(items), validateValues: compileConfigValues(items) };
}

/**
 * Equal as JSON texts would be, key order included (a schema's key order can show in its error
 * messages), without building the texts.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i] as string;
    if (key !== bKeys[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
