import { writeJson } from "../../base/exact-json.js";
import { FieldPath } from "../../base/field-path.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import type { ConfigItem } from "../../generated/module.js";
import { LruCache } from "../../memo/lru-cache.js";
import { type ConfigSchemaVerdict, validateConfigSchema } from "./config-schema-rules.js";
import { type ConfigValuesVerdict, compileConfigValues, type ModuleSource } from "./config-values-rules.js";

/** Everything the config rules need from one config schema, worked out once. */
export interface ConfigValidator {
  /** What is wrong with the config schema itself (the top-level `config`). */
  schema: ConfigSchemaVerdict;
  /** spec.config against that schema. */
  validateValues(
    values: Record<string, unknown>,
    source: ModuleSource,
    work: WorkBudget,
  ): ConfigValuesVerdict;
}

interface Entry {
  /** The schema the validator was compiled from, as a shape to compare schemas with. */
  shape: JsonShape;
  validator: ConfigValidator;
  bytes: number;
}

/**
 * Many Modules share one config schema (one chart, many namespaces): an LRU cache of compiled
 * validators, bounded by bytes rather than entries, since one schema can be a few KB or 3 MiB. An entry
 * is reckoned at 16 bytes per character of the schema's JSON: the copy of the schema the validator keeps
 * and what it derives from it measured 12 to 15 (128-item schemas; compiled regexes are in the RE2
 * cache, bounded on its own), and at most 12.7 with the shape the schema is compared with (heap
 * measured for 60 schemas of 128 items: short items, the worst case, 8.2 without the shape). It is looked up by the schema's
 * aliases and a hit is confirmed by comparing the schema with the cached shape, which stops at the first
 * difference: no serialization of the whole schema on every review (the JSON is measured only on a
 * miss). At most `variantLimit` schemas per list of aliases. The most recently used entry is not moved
 * again on a hit: a Module's UPDATE looks its schema up twice (new and old object), and Modules of one
 * chart look up the same one review after review.
 */
const configPath = FieldPath.root("config");

export const cacheBytesLimit = 32 * 1024 * 1024;
const cache = new LruCache<Entry[]>({ bytes: cacheBytesLimit, entryBytes: cacheBytesLimit });
const variantLimit = 8;
let cacheEnabled = true;
/** The entry used last: first in its list of variants, its list last in the cache. */
let newest: Entry | undefined;

/**
 * Units of the work budget per config item: compiling a validator (its rules, its values' checks, the
 * copy the cache keeps; about 5 us an item), and comparing it with a cached schema.
 */
const compiledItemUnits = 800;
const comparedItemUnits = 20;

/**
 * The validator for a config schema, from the cache when the same schema was seen recently; the
 * comparisons with cached schemas and a compilation are charged to `budget`.
 */
export function configValidator(items: ConfigItem[], budget: WorkBudget): ConfigValidator {
  const compile = () => {
    budget.charge(compiledItemUnits * items.length, "compiling the config schema", configPath);
    return compileConfigValidator(items);
  };
  if (!cacheEnabled) return compile();
  budget.charge(comparedItemUnits * items.length, "looking the config schema up", configPath);
  // The schema used last, first: a match means the same aliases, so its key need not be built.
  if (newest && matchesShape(items, newest.shape)) return newest.validator;
  const key = items.map((item) => item.alias).join("\n");
  // Most recently used last among the lists (the cache's order), first within one.
  const variants = cache.get(key) ?? [];
  const hit = variants.find((variant) => matchesShape(items, variant.shape));
  if (hit) {
    variants.splice(variants.indexOf(hit), 1);
    variants.unshift(hit);
    newest = hit;
    return hit.validator;
  }
  budget.charge(compiledItemUnits * items.length, "compiling the config schema", configPath);
  const bytes = jsonLength(items) * 16;
  // A schema too large to share the cache with others is not kept: compiled from the caller's object,
  // as the review that holds it is judged (a copy of 10,000 items was made and dropped, 20 ms).
  if (bytes > cacheBytesLimit / 4) return compileConfigValidator(items);
  // Compiled from a copy: the cached validator must not change when the caller's object does.
  const copy = structuredClone(items);
  const validator = compileConfigValidator(copy);
  const entry: Entry = { shape: shapeOf(copy), validator, bytes };
  const list = [entry, ...variants].slice(0, variantLimit);
  if (
    cache.set(
      key,
      list,
      list.reduce((sum, variant) => sum + variant.bytes, 0),
    )
  )
    newest = entry;
  return validator;
}

/** The length of the value's JSON: JSON.stringify's, without walking for bigints first unless it holds one. */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value).length;
  } catch {
    return writeJson(value).length;
  }
}

/** What the cache holds by its own reckoning, for the test of its bound. */
export function configValidatorCacheBytes(): number {
  return cache.bytes;
}

/** For the benchmark, which measures with and without the cache. */
export function setConfigValidatorCache(enabled: boolean): void {
  cacheEnabled = enabled;
  cache.clear();
  newest = undefined;
}

function compileConfigValidator(items: ConfigItem[]): ConfigValidator {
  return { schema: validateConfigSchema(items), validateValues: compileConfigValues(items) };
}

/**
 * A JSON value prepared to be compared with many others: each map's keys listed once, so that a
 * comparison lists only the other value's keys (with for...in, which allocates nothing).
 */
export type JsonShape = MapShape | ListShape | boolean | number | string | null | undefined;

class MapShape {
  constructor(
    readonly keys: string[],
    readonly values: JsonShape[],
  ) {}
}

class ListShape {
  constructor(readonly items: JsonShape[]) {}
}

export function shapeOf(value: unknown): JsonShape {
  if (value === null || typeof value !== "object") return value as JsonShape;
  if (Array.isArray(value)) return new ListShape(value.map(shapeOf));
  const keys = Object.keys(value);
  return new MapShape(
    keys,
    keys.map((key) => shapeOf((value as Record<string, unknown>)[key])),
  );
}

/**
 * Whether `value` is equal to the shape's value as JSON texts would be, key order included (a schema's
 * key order can show in its error messages), without building the texts; stops at the first difference.
 */
export function matchesShape(value: unknown, shape: JsonShape): boolean {
  if (shape instanceof MapShape) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    const { keys, values } = shape;
    let i = 0;
    // for...in gives the own enumerable keys in Object.keys order; an inherited enumerable key, after
    // them, makes the count differ: then the values are not taken as equal (a cache miss, not a wrong hit).
    for (const key in value) {
      if (key !== keys[i] || !matchesShape((value as Record<string, unknown>)[key], values[i])) return false;
      i++;
    }
    return i === keys.length;
  }
  if (shape instanceof ListShape) {
    const { items } = shape;
    if (!Array.isArray(value) || value.length !== items.length) return false;
    for (let i = 0; i < items.length; i++) if (!matchesShape(value[i], items[i])) return false;
    return true;
  }
  return value === shape;
}
