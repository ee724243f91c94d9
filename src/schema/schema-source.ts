import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { load as loadYaml } from "js-yaml";

export type JsonSchema = { [keyword: string]: unknown };

export interface CrdMetadata {
  group: string;
  version: string;
  scope: "Namespaced" | "Cluster";
  /**
   * A CRD the chart installs only on request (its owner usually ships it): generated into the chart's
   * `files/crds/` for a template to render, instead of `crds/`, which Helm always installs.
   */
  optional?: boolean;
  /**
   * A CRD the chart never installs (generated into `files/crds/` too), while `install-crds` applies
   * it by default: the Forkspacer operator's kinds, whose CRDs stay the operator's unless a cluster
   * replaces them with ours on purpose (forkspacer.mode replace).
   */
  manual?: boolean;
  names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[] };
  /**
   * The other kinds another product serves in this group and version (Kyma's Kyma, Manifest, Watcher
   * beside ModuleTemplate): the editor schema's `kind` enum for the group accepts them. Said once per
   * group, in any of its schema sources.
   */
  groupKinds?: string[];
  subresources?: Record<string, unknown>;
  additionalPrinterColumns?: Record<string, unknown>[];
  /**
   * Versions the CRD lists beside `version`, neither served nor stored: a CRD that drops a version its
   * `status.storedVersions` names is refused, so one that replaces another product's keeps its old ones.
   * Each schema may `$ref` the source schema's `$defs`.
   */
  legacyVersions?: LegacyVersion[];
}

export interface LegacyVersion {
  name: string;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: JsonSchema;
}

/** One resource kind's schema source: `schemas/<name>.yaml`. */
export interface SchemaSource {
  name: string;
  crd: CrdMetadata;
  schema: JsonSchema;
}

export function loadSchemaSources(schemasDir: string): SchemaSource[] {
  return readdirSync(schemasDir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => loadSchemaSource(join(schemasDir, file)));
}

/** One schema source, `<name>.yaml`. */
export function loadSchemaSource(file: string | URL): SchemaSource {
  const parsed = loadYaml(readFileSync(file, "utf8")) as Omit<SchemaSource, "name">;
  const name = basename(typeof file === "string" ? file : file.pathname, ".yaml");
  return { name, crd: parsed.crd, schema: parsed.schema };
}

/**
 * Replaces every `$ref: "#/$defs/X"` by the definition it names, sibling keywords overriding the
 * definition's (so a reference can carry its own description). The CRD and the editor schema need
 * self-contained schemas; only the TypeScript types keep the references, to name shared types once.
 */
export function inlineRefs(schema: JsonSchema): JsonSchema {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const visit = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, seen));
    if (node === null || typeof node !== "object") return node;
    const { $ref, ...rest } = node as JsonSchema;
    if (typeof $ref === "string") {
      const name = $ref.replace(/^#\/\$defs\//, "");
      const target = defs[name];
      if (!target) throw new Error(`unresolved $ref ${$ref}`);
      if (seen.includes(name)) throw new Error(`recursive $ref ${$ref} cannot be inlined`);
      return visit({ ...target, ...rest }, [...seen, name]);
    }
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, visit(value, seen)]));
  };
  const { $defs: _, ...root } = schema;
  return visit(root, []) as JsonSchema;
}

/** Rebuilds a schema tree, letting `rewrite` change each schema node (after its children). */
export function mapSchemaNodes(schema: JsonSchema, rewrite: (node: JsonSchema) => JsonSchema): JsonSchema {
  const mapChildren = (node: JsonSchema): JsonSchema => {
    const out: JsonSchema = { ...node };
    if (isSchema(node.properties)) {
      out.properties = Object.fromEntries(
        Object.entries(node.properties).map(([key, child]) => [key, mapChildren(child as JsonSchema)]),
      );
    }
    if (isSchema(node.items)) out.items = mapChildren(node.items);
    if (isSchema(node.additionalProperties))
      out.additionalProperties = mapChildren(node.additionalProperties);
    if (isSchema(node.$defs)) {
      out.$defs = Object.fromEntries(
        Object.entries(node.$defs).map(([key, child]) => [key, mapChildren(child as JsonSchema)]),
      );
    }
    return rewrite(out);
  };
  return mapChildren(schema);
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function withoutKeys(node: JsonSchema, predicate: (key: string) => boolean): JsonSchema {
  return Object.fromEntries(Object.entries(node).filter(([key]) => !predicate(key)));
}

/**
 * The node without `required` entries for properties that have a `default` (their own, or their
 * `$ref` target's in `defs`): the API server fills those in before anything checks the object, so a
 * manifest, and an object a webhook is shown without a CRD in front of it, may lack them.
 */
export function withoutDefaultedRequired(
  node: JsonSchema,
  defs: Record<string, JsonSchema> = {},
): JsonSchema {
  if (!Array.isArray(node.required)) return node;
  const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
  const defaultOf = (property: JsonSchema | undefined) => {
    const ref =
      typeof property?.$ref === "string" ? defs[property.$ref.replace(/^#\/\$defs\//, "")] : undefined;
    return property?.default ?? ref?.default;
  };
  const required = (node.required as string[]).filter((key) => defaultOf(properties[key]) === undefined);
  // Rebuilt in the same key order, so that a generated file changes only where a field did.
  return Object.fromEntries(
    Object.entries(node).flatMap(([key, value]) =>
      key !== "required" ? [[key, value]] : required.length > 0 ? [[key, required]] : [],
    ),
  );
}
