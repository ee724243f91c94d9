import type { FieldErrorList } from "../../admission/field-errors.js";
import type { ConfigItem } from "../../generated/module.js";
import { validateConfigSchema } from "./config-schema-rules.js";
import { compileConfigValues } from "./config-values-rules.js";

/** Everything the config rules need from one config schema, worked out once. */
export interface ConfigValidator {
  /** Problems of the config schema itself (the top-level `config`). */
  schemaErrors: FieldErrorList;
  /** spec.config against that schema. */
  validateValues(values: Record<string, unknown>): FieldErrorList;
}

interface Entry {
  /** A private copy of the schema the validator was compiled from. */
  items: ConfigItem[];
  validator: ConfigValidator;
}

/**
 * Many Modules share one config schema (one chart, many namespaces): a bounded LRU cache of compiled
 * validators, at most `aliasLimit` × `variantLimit` = 256 schemas. It is looked up by the schema's
 * aliases (cheap: no serialization of the whole schema on every review) and a hit is confirmed by
 * comparing the schema with the cached copy, which stops at the first difference.
 */
const cache = new Map<string, Entry[]>();
const aliasLimit = 64;
const variantLimit = 4;
let cacheEnabled = true;

/** The validator for a config schema, from the cache when the same schema was seen recently. */
export function configValidator(items: ConfigItem[]): ConfigValidator {
  if (!cacheEnabled) return compileConfigValidator(items);
  const key = items.map((item) => item.alias).join("\n");
  const variants = cache.get(key) ?? [];
  // Most recently used last, so that the least recently used is evicted first.
  cache.delete(key);
  let entry = variants.find((variant) => sameJson(variant.items, items));
  if (entry) {
    variants.splice(variants.indexOf(entry), 1);
    variants.unshift(entry);
  } else {
    // Compiled from a copy: the cached validator must not change when the caller's object does.
    const copy = structuredClone(items);
    entry = { items: copy, validator: compileConfigValidator(copy) };
    variants.unshift(entry);
    if (variants.length > variantLimit) variants.pop();
    if (cache.size >= aliasLimit) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, variants);
  return entry.validator;
}

/** For the benchmark, which measures with and without the cache. */
export function setConfigValidatorCache(enabled: boolean): void {
  cacheEnabled = enabled;
  cache.clear();
}

function compileConfigValidator(items: ConfigItem[]): ConfigValidator {
  return { schemaErrors: validateConfigSchema(items), validateValues: compileConfigValues(items) };
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
