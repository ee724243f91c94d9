import { asSchema, copyMap, hasKey, isMap, type Schema, schemaMap } from "./schema.js";

/**
 * Defaults as addon-operator applies them (`pkg/values/validation/defaulting.go`): a property's `default`
 * fills an absent key, except `default: null`, which Go cannot tell from no default and skips (a key
 * present with null keeps its null); then defaults apply inside every property value, just-filled ones
 * included, and inside each element of an array whose `items` is a single schema. The root's own default
 * and anything under combinators are ignored. Returns a new value; the input is not changed.
 */
export function applyDefaults(value: unknown, schema: Schema): unknown {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    return items ? value.map((element) => applyDefaults(element, items)) : value;
  }
  if (!isMap(value)) return value;
  const result = copyMap(value);
  for (const [key, property] of schemaMap(schema, "properties")) {
    const defaultValue = hasKey(property, "default") ? property.default : null;
    if (!hasKey(result, key) && defaultValue !== null && defaultValue !== undefined) {
      result[key] = clone(defaultValue);
    }
    if (hasKey(result, key)) result[key] = applyDefaults(result[key], property);
  }
  return result;
}

/** What addon-operator checks for a section: the schema's defaults on an empty object, overridden by the user's values. */
export function effectiveValues(userValues: unknown, schema: Schema): unknown {
  return mergeValues(clone(defaultsOf(schema)), userValues);
}

/**
 * The schema's defaults on an empty object, computed once per schema object (schemas are never changed
 * once loaded); callers get a clone, as applyDefaults returns a new value every time.
 */
const emptyDefaults = new WeakMap<Schema, unknown>();
function defaultsOf(schema: Schema): unknown {
  let defaults = emptyDefaults.get(schema);
  if (defaults === undefined) {
    defaults = applyDefaults({}, schema);
    emptyDefaults.set(schema, defaults);
  }
  return defaults;
}

/** A deep copy whose maps have no prototype. */
export function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (!isMap(value)) return value;
  const copy = copyMap(value);
  for (const key of Object.keys(copy)) copy[key] = clone(copy[key]);
  return copy;
}

/** addon-operator's values merge: maps merge key by key, everything else (lists and null included) replaces. */
export function mergeValues(base: unknown, override: unknown): unknown {
  if (!isMap(base) || !isMap(override)) return clone(override);
  const merged = copyMap(base);
  for (const [key, value] of Object.entries(override)) {
    merged[key] = hasKey(base, key) ? mergeValues(base[key], value) : clone(value);
  }
  return merged;
}
