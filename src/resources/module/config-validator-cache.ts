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

/**
 * Many Modules share one config schema (one chart, many namespaces): a cache keyed by the schema,
 * bounded by bytes rather than entries, since one schema can be a few KB or 3 MiB. An entry is
 * reckoned at 16 bytes per character of its key: the key, the copy of the schema the validator keeps
 * and what it derives from it measured 12 to 15 (128-item schemas; compiled regexes are in the RE2
 * cache, bounded on its own).
 */
const cache = new Map<string, { validator: ConfigValidator; bytes: number }>();
export const cacheBytesLimit = 32 * 1024 * 1024;
let cachedBytes = 0;
let cacheEnabled = true;

/** The validator for a config schema, from the cache when the same schema was seen recently. */
export function configValidator(items: ConfigItem[]): ConfigValidator {
  if (!cacheEnabled) return compileConfigValidator(items);
  const key = JSON.stringify(items);
  const cached = cache.get(key);
  if (cached) {
    // Most recently used last, so that the least recently used is evicted first.
    cache.delete(key);
    cache.set(key, cached);
    return cached.validator;
  }
  // Compiled from a copy: the cached validator must not change when the caller's object does.
  const validator = compileConfigValidator(structuredClone(items));
  const bytes = key.length * 16;
  // A schema too large to share the cache with others is not kept.
  if (bytes > cacheBytesLimit / 4) return validator;
  while (cache.size > 0 && cachedBytes + bytes > cacheBytesLimit) {
    const [oldest, entry] = cache.entries().next().value as [string, { bytes: number }];
    cache.delete(oldest);
    cachedBytes -= entry.bytes;
  }
  cache.set(key, { validator, bytes });
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
