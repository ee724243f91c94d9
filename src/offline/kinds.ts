import { fileURLToPath } from "node:url";
import type { FieldError } from "../admission/field-errors.js";
import type { ResourceKind } from "../admission/resource-kind.js";
import { customResourceChecker } from "../apiextensions/custom-resource.js";
import { crdRuleValidator } from "../cel/crd-validator.js";
import { buildCrd, storedVersionSchema } from "../codegen/crd.js";
import { buildEditorSchema } from "../codegen/editor-schema.js";
import { type JsonSchema, loadSchemaSources, type SchemaSource } from "../codegen/schema-source.js";
import { resourceKinds } from "../resources/index.js";
import { type StructureVerdict, structureChecker } from "../validation/structure.js";

/** A registered kind with its schema source: everything needed to give the cluster's verdict offline. */
export interface OfflineKind {
  kind: ResourceKind;
  source: SchemaSource;
  /** The CRD's openAPIV3Schema, generated from the source exactly as the chart's CRD is. */
  crdSchema: JsonSchema;
  checkStructure: (object: unknown) => StructureVerdict;
  checkRules: (object: unknown, oldObject?: unknown) => FieldError[];
  /** The API server's embedded-resource and list-type checks, from the same schema. */
  checkCustomResource: (object: unknown, oldObject?: unknown) => FieldError[];
}

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
export const schemasDir = fileURLToPath(new URL("../../schemas/", import.meta.url));

/** Every registered kind that has a schema source, matched by group and kind. */
export function offlineKinds(kinds: ResourceKind[] = resourceKinds, dir = schemasDir): OfflineKind[] {
  const sources = loadSchemaSources(dir);
  return kinds.flatMap((kind) => {
    const source = sources.find((s) => s.crd.group === kind.group && s.crd.names.kind === kind.kind);
    if (!source) return [];
    const crdSchema = storedVersionSchema(buildCrd(source));
    return [
      {
        kind,
        source,
        crdSchema,
        checkStructure: structureChecker(buildEditorSchema(source)),
        checkRules: crdRuleValidator(crdSchema),
        checkCustomResource: customResourceChecker(crdSchema),
      },
    ];
  });
}

/** The kind an object is, by its apiVersion and kind; undefined when no registered kind matches. */
export function kindOf(kinds: OfflineKind[], object: unknown): OfflineKind | undefined {
  const { apiVersion, kind } = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  return kinds.find((k) => apiVersion === `${k.kind.group}/${k.kind.version}` && kind === k.kind.kind);
}
