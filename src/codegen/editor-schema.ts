import {
  inlineRefs,
  type JsonSchema,
  mapSchemaNodes,
  type SchemaSource,
  withoutDefaultedRequired,
  withoutKeys,
} from "./schema-source.js";

/**
 * A plain JSON Schema (draft-07) of the whole resource, for editors and for offline checks. Objects are
 * closed (`additionalProperties: false`) unless the source marks them free-form, so a typo shows in the
 * editor instead of being pruned silently by the API server. A property with a `default` is not
 * required here: the API server fills it in before anything checks it, so a manifest may omit it.
 */
export function buildEditorSchema(source: SchemaSource): JsonSchema {
  const { crd } = source;
  const closed = mapSchemaNodes(inlineRefs(source.schema), (node) => {
    const freeForm = node["x-kubernetes-preserve-unknown-fields"] === true;
    const plain = withoutKeys(node, (key) => key.startsWith("x-kubernetes-"));
    if (freeForm) return { ...plain, additionalProperties: true };
    const open = withoutDefaultedRequired(plain);
    if (open.type === "object" && open.properties && open.additionalProperties === undefined) {
      return { ...open, additionalProperties: false };
    }
    return open;
  });
  const properties = { ...(closed.properties as Record<string, JsonSchema>) };
  properties.apiVersion = { ...properties.apiVersion, const: `${crd.group}/${crd.version}` };
  properties.kind = { ...properties.kind, const: crd.names.kind };
  properties.metadata = { ...properties.metadata, additionalProperties: true };
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://module-admission.dev/schemas/${crd.group}/${crd.version}/${crd.names.singular}.json`,
    ...closed,
    required: [...new Set(["apiVersion", "kind", ...((closed.required as string[]) ?? [])])],
    properties,
  };
}
