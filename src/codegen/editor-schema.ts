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

/**
 * One schema for every kind, for a whole repository's YAML: each kind's schema applies where
 * `apiVersion` and `kind` name it (if/then), and nothing applies to anything else, so a file that holds
 * a Workspace and a Module, a Deployment or a `kustomization.yaml` gets no false errors.
 */
export function buildEditorDispatchSchema(sources: readonly SchemaSource[]): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};
  const branches = sources.map((source) => {
    const { $schema: _schema, $id: _id, ...schema } = buildEditorSchema(source);
    definitions[source.name] = schema;
    const apiVersion = `${source.crd.group}/${source.crd.version}`;
    return {
      if: {
        required: ["apiVersion", "kind"],
        properties: { apiVersion: { const: apiVersion }, kind: { const: source.crd.names.kind } },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
      then: { $ref: `#/definitions/${source.name}` },
    };
  });
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://module-admission.dev/schemas/module-admission.json",
    title: `module-admission: ${sources.map((source) => source.crd.names.kind).join(", ")}`,
    description:
      "Checks the kinds module-admission knows, by apiVersion and kind; other objects are left alone.",
    allOf: branches,
    definitions,
  };
}
