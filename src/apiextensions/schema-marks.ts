import type { JsonSchema } from "../schema/schema-source.js";

/** A schema node's children: its properties, additionalProperties and items schemas. */
function children(schema: JsonSchema): JsonSchema[] {
  const found = Object.values((schema.properties ?? {}) as Record<string, JsonSchema>);
  for (const child of [schema.additionalProperties, schema.items]) {
    if (child !== null && typeof child === "object" && !Array.isArray(child)) found.push(child as JsonSchema);
  }
  return found;
}

/**
 * Whether a node or any node below it satisfies `marked`, found once per node and question: most of a
 * CRD's subtrees (an embedded resource's body, a preserved-unknown descriptor) carry no list type and
 * no embedded resource, and their values need not be walked at all.
 */
export function markedWithin(
  question: WeakMap<JsonSchema, boolean>,
  marked: (schema: JsonSchema) => boolean,
) {
  const within = (schema: JsonSchema): boolean => {
    let found = question.get(schema);
    if (found === undefined) {
      question.set(schema, false); // a recursive schema reaches itself: no answer from there
      found = marked(schema) || children(schema).some(within);
      question.set(schema, found);
    }
    return found;
  };
  return within;
}
