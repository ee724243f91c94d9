/** An OpenAPI v2 / draft-4 schema as read from a module's openapi/*.yaml: plain YAML data. */
export type Schema = Record<string, unknown>;

export const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

export const asSchema = (value: unknown): Schema | undefined => (isMap(value) ? value : undefined);

/**
 * The schemas under a map-of-schemas keyword (`properties`, `patternProperties`). Worked out once per
 * schema object and keyword: values are checked against the same loaded schemas on every review, and
 * schemas are not changed once loaded. The list is shared: callers must not change it.
 */
export function schemaMap(schema: Schema, keyword: string): readonly (readonly [string, Schema])[] {
  let byKeyword = schemaMaps.get(schema);
  if (!byKeyword) {
    byKeyword = new Map();
    schemaMaps.set(schema, byKeyword);
  }
  let entries = byKeyword.get(keyword);
  if (!entries) {
    const map = asSchema(schema[keyword]);
    entries = map
      ? Object.entries(map).flatMap(([key, value]) => (isMap(value) ? [[key, value] as const] : []))
      : [];
    byKeyword.set(keyword, entries);
  }
  return entries;
}

const schemaMaps = new WeakMap<Schema, Map<string, readonly (readonly [string, Schema])[]>>();

/**
 * The schema as addon-operator validates with it: `additionalProperties: false` wherever it is absent, at
 * the root and down through `properties` and `items`. A schema that sets additionalProperties itself is
 * left alone with everything below it; combinators and patternProperties are not entered (addon-operator's
 * transformer does not go there, so objects inside them stay open).
 */
export function closeSchema(schema: Schema): Schema {
  if (schema.additionalProperties !== undefined) return schema;
  const closed: Schema = { ...schema, additionalProperties: false };
  const properties = asSchema(schema.properties);
  if (properties) {
    closed.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, isMap(value) ? closeSchema(value) : value]),
    );
  }
  if (isMap(schema.items)) closed.items = closeSchema(schema.items);
  else if (Array.isArray(schema.items)) {
    closed.items = schema.items.map((item) => (isMap(item) ? closeSchema(item) : item));
  }
  return closed;
}
