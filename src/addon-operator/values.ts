import { asSchema, isMap, type Schema, schemaMap } from "./schema.js";

/**
 * Defaults as addon-operator applies them: a property's `default` fills an absent key (a key present with
 * null keeps its null), then defaults apply inside every property value, just-filled ones included, and
 * inside each element of an array whose `items` is a single schema. The root's own default and anything
 * under combinators are ignored. Returns a new value; the input is not changed.
 */
export function applyDefaults(value: unknown, schema: Schema): unknown {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    return items ? value.map((element) => applyDefaults(element, items)) : value;
  }
  if (!isMap(value)) return value;
  const result: Record<string, unknown> = { ...value };
  for (const [key, property] of schemaMap(schema, "properties")) {
    if (!(key in result) && "default" in property) result[key] = structuredClone(property.default);
    if (key in result) result[key] = applyDefaults(result[key], property);
  }
  return result;
}

/** What addon-operator checks for a section: the schema's defaults on an empty object, overridden by the user's values. */
export function effectiveValues(userValues: unknown, schema: Schema): unknown {
  return mergeValues(applyDefaults({}, schema), userValues);
}

/** addon-operator's values merge: maps merge key by key, everything else (lists and null included) replaces. */
export function mergeValues(base: unknown, override: unknown): unknown {
  if (!isMap(base) || !isMap(override)) return structuredClone(override);
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    merged[key] = key in base ? mergeValues(base[key], value) : structuredClone(value);
  }
  return merged;
}
