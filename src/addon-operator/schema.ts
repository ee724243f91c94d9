/** An OpenAPI v2 / draft-4 schema as read from a module's openapi/*.yaml: plain YAML data. */
export type Schema = Record<string, unknown>;

export const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

export const asSchema = (value: unknown): Schema | undefined => (isMap(value) ? value : undefined);

/** The schemas under a map-of-schemas keyword (`properties`, `patternProperties`). */
export function schemaMap(schema: Schema, keyword: string): [string, Schema][] {
  const map = asSchema(schema[keyword]);
  if (!map) return [];
  return Object.entries(map).flatMap(([key, value]) =>
    isMap(value) ? [[key, value] as [string, Schema]] : [],
  );
}

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
