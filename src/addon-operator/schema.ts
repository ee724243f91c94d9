import { emptyMap } from "../base/empty-map.js";

/** An OpenAPI v2 / draft-4 schema as read from a module's openapi/*.yaml: plain YAML data. */
export type Schema = Record<string, unknown>;

export const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

export const asSchema = (value: unknown): Schema | undefined => (isMap(value) ? value : undefined);

/** The same entries in a map without a prototype. */
export const copyMap = (value: Record<string, unknown>): Record<string, unknown> =>
  Object.assign(emptyMap(), value);

/** Whether the map has the key itself (never through a prototype). */
export const hasKey = (map: Record<string, unknown>, key: string): boolean => Object.hasOwn(map, key);

/**
 * The schemas under a map-of-schemas keyword (`properties`, `patternProperties`). Derived once per schema
 * object and keyword, not on every value checked against it: schemas are plain data that is never changed
 * once loaded (a schema file's new content is a new object), so the entries of one object stay the same.
 */
export function schemaMap(schema: Schema, keyword: string): readonly (readonly [string, Schema])[] {
  let byKeyword = schemaMaps.get(schema);
  if (byKeyword === undefined) {
    byKeyword = new Map();
    schemaMaps.set(schema, byKeyword);
  }
  let entries = byKeyword.get(keyword);
  if (entries === undefined) {
    const map = asSchema(schema[keyword]);
    entries = Object.freeze(
      map
        ? Object.entries(map).flatMap(([key, value]) =>
            isMap(value) ? [Object.freeze([key, value] as const)] : [],
          )
        : [],
    );
    byKeyword.set(keyword, entries);
  }
  return entries;
}

const schemaMaps = new WeakMap<Schema, Map<string, readonly (readonly [string, Schema])[]>>();

/**
 * The schema as addon-operator's AdditionalPropertiesTransformer leaves it: `additionalProperties: false`
 * where it is absent, on the root and on every `items` schema, which are always entered, and on each
 * property that does not set it, which is then entered too; a property that sets additionalProperties
 * itself is left alone with everything below it. Combinators, patternProperties and schema-valued
 * additionalProperties are never entered.
 */
export function closeSchema(schema: Schema): Schema {
  const closed = copyMap(schema);
  if (closed.additionalProperties === undefined) closed.additionalProperties = false;
  const properties = asSchema(schema.properties);
  if (properties) {
    const closedProperties = emptyMap();
    for (const [key, value] of Object.entries(properties)) {
      closedProperties[key] =
        isMap(value) && value.additionalProperties === undefined ? closeSchema(value) : value;
    }
    closed.properties = closedProperties;
  }
  if (isMap(schema.items)) closed.items = closeSchema(schema.items);
  else if (Array.isArray(schema.items)) {
    closed.items = schema.items.map((item) => (isMap(item) ? closeSchema(item) : item));
  }
  return closed;
}
