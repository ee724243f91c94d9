import {
  inlineRefs,
  type JsonSchema,
  mapSchemaNodes,
  type SchemaSource,
  withoutKeys,
} from "../schema/schema-source.js";

/** The CustomResourceDefinition (apiextensions.k8s.io/v1) for one schema source. */
export function buildCrd(source: SchemaSource): JsonSchema {
  const { crd } = source;
  const defs = source.schema.$defs;
  const openAPIV3Schema = (schema: JsonSchema) =>
    rootMetadataAsServed(
      mapSchemaNodes(inlineRefs(schema), (node) => withoutKeys(node, (key) => key === "title")),
    );
  const common = {
    ...(crd.subresources ? { subresources: crd.subresources } : {}),
    ...(crd.additionalPrinterColumns ? { additionalPrinterColumns: crd.additionalPrinterColumns } : {}),
  };
  const legacy = (crd.legacyVersions ?? []).map((version) => ({
    name: version.name,
    served: false,
    storage: false,
    ...(version.deprecated ? { deprecated: true } : {}),
    ...(version.deprecationWarning ? { deprecationWarning: version.deprecationWarning } : {}),
    ...common,
    schema: { openAPIV3Schema: openAPIV3Schema(defs ? { ...version.schema, $defs: defs } : version.schema) },
  }));
  const current = {
    name: crd.version,
    served: true,
    storage: true,
    ...common,
    schema: { openAPIV3Schema: openAPIV3Schema(source.schema) },
  };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${crd.names.plural}.${crd.group}`,
      labels: { "app.kubernetes.io/managed-by": "module-admission" },
    },
    spec: {
      group: crd.group,
      names: crd.names,
      scope: crd.scope,
      // Sorted by name, as controller-gen writes them.
      versions: [...legacy, current].sort((a, b) => a.name.localeCompare(b.name)),
    },
  };
}

/**
 * The API server refuses a CRD whose root `metadata` schema says anything but `type: object` and the
 * properties name and generateName ("must not specify anything other than name and generateName, but
 * metadata is implicitly specified"): ObjectMeta's own schema applies there. Sources may describe
 * metadata for the editor schema and the TypeScript types; the CRD drops the rest.
 */
function rootMetadataAsServed(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const metadata = properties?.metadata;
  if (!metadata) return schema;
  const metadataProperties = (metadata.properties ?? {}) as Record<string, JsonSchema>;
  const kept = Object.fromEntries(
    Object.entries(metadataProperties).filter(([key]) => key === "name" || key === "generateName"),
  );
  const served: JsonSchema = {
    type: "object",
    ...(Object.keys(kept).length > 0 ? { properties: kept } : {}),
  };
  return { ...schema, properties: { ...properties, metadata: served } };
}

/** The openAPIV3Schema of the served, stored version of a CRD that buildCrd made. */
export function storedVersionSchema(crd: JsonSchema): JsonSchema {
  const versions = (crd.spec as { versions: { storage: boolean; schema: { openAPIV3Schema: JsonSchema } }[] })
    .versions;
  const stored = versions.find((version) => version.storage);
  if (!stored) throw new Error("a CRD without a stored version");
  return stored.schema.openAPIV3Schema;
}
