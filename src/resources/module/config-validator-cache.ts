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

/** Many Modules share one config schema (one chart, many namespaces): a bounded cache keyed by the schema. */
const cache = new Map<string, ConfigValidator>();
const cacheLimit = 256;
let cacheEnabled = true;

/** The validator for a config schema, from the cache when the same schema was seen recently. */
export function configValidator(items: ConfigItem[]): ConfigValidator {
  if (!cacheEnabled) return compileConfigValidator(items);
  const key = JSON.stringify(items);
  let validator = cache.get(key);
  if (validator) {
    // Most recently used last, so that the least recently used is evicted first.
    cache.delete(key);
  } else {
    // Compiled from a copy: the cached validator must not change when the caller's object does.
    validator = compileConfigValidator(structuredClone(items));
    if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, validator);
  return validator;
}

/** For the benchmark, which measures with and without the cache. */
export function setConfigValidatorCache(enabled: boolean): void {
  cacheEnabled = enabled;
  cache.clear();
}

function compileConfigValidator(items: ConfigItem[]): ConfigValidator {
  return { schema: validateConfigSchema(items), validateValues: compileConfigValues(items) };
}
