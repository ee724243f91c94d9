import {
  inlineRefs,
  type JsonSchema,
  mapSchemaNodes,
  type SchemaSource,
  withoutKeys,
} from "./schema-source.js";

/** The CustomResourceDefinition (apiextensions.k8s.io/v1) for one schema source. */
export function buildCrd(source: SchemaSource): JsonSchema {
  const { crd } = source;
  const openAPIV3Schema = mapSchemaNodes(inlineRefs(source.schema), (node) =>
    withoutKeys(node, (key) => key === "title"),
  );
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
      versions: [
        {
          name: crd.version,
          served: true,
          storage: true,
          ...(crd.subresources ? { subresources: crd.subresources } : {}),
          ...(crd.additionalPrinterColumns ? { additionalPrinterColumns: crd.additionalPrinterColumns } : {}),
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}
