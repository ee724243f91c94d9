import { emptyMap } from "../base/empty-map.js";
import { asSchema, copyMap, isMap, type Schema } from "./schema.js";

const mergedByKey = ["definitions", "properties", "patternProperties"] as const;

/**
 * A values schema with `x-extend` completed from its config-values schema, as addon-operator builds it:
 * definitions, properties and patternProperties merged by key (the values schema wins), `required`
 * parent-first without duplicates, title and description from the values schema when it has them, and
 * the parent's `x-*` keys copied where the values schema has none.
 */
export function extendSchema(child: Schema, parent: Schema): Schema {
  const extended: Schema = { ...child };
  delete extended["x-extend"];
  for (const keyword of mergedByKey) {
    const parentMap = asSchema(parent[keyword]);
    const childMap = asSchema(child[keyword]);
    if (parentMap || childMap) extended[keyword] = { ...parentMap, ...childMap };
  }
  const required = [parent.required, child.required].flatMap((list) => (Array.isArray(list) ? list : []));
  if (required.length > 0) extended.required = [...new Set(required)];
  for (const keyword of ["title", "description"]) {
    if (child[keyword] === undefined && parent[keyword] !== undefined) extended[keyword] = parent[keyword];
  }
  for (const [key, value] of Object.entries(parent)) {
    if (key.startsWith("x-") && key !== "x-extend" && !(key in child)) extended[key] = value;
  }
  return extended;
}

/**
 * The schema addon-operator checks before Helm runs (RequiredForHelmTransformer): `x-required-for-helm`, a
 * string or a list, joins `required` at the root and through `properties`, not through `items`.
 */
export function helmSchema(schema: Schema): Schema {
  const result: Schema = copyMap(schema);
  const forHelm = schema["x-required-for-helm"];
  const names = typeof forHelm === "string" ? [forHelm] : Array.isArray(forHelm) ? forHelm : [];
  if (names.length > 0) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    result.required = [...new Set([...required, ...names])];
  }
  const properties = asSchema(schema.properties);
  if (properties) {
    const transformed = emptyMap();
    for (const [key, value] of Object.entries(properties))
      transformed[key] = isMap(value) ? helmSchema(value) : value;
    result.properties = transformed;
  }
  return result;
}
