import { own, setOwn } from "../admission/own-property.js";
import type { JsonSchema } from "../codegen/schema-source.js";

export interface Structured {
  /** A copy of the object as the API server stores it: defaults applied, unknown fields dropped. */
  object: unknown;
  /** Field paths the API server would prune silently (`spec.helm.relaseName`). */
  pruned: string[];
}

/** Fields the API server keeps on every object whatever the schema says (ObjectMeta is checked apart). */
const rootFields = new Set(["apiVersion", "kind", "metadata"]);

/**
 * What the API server does to a custom resource before validating it, driven by the CRD's structural
 * schema: unknown fields are pruned (unless `x-kubernetes-preserve-unknown-fields`), nulls dropped where
 * the schema does not say `nullable`, and `default`s fill absent properties of objects that are present.
 * Pure: returns a new object.
 */
export function pruneAndDefault(schema: JsonSchema, object: unknown): Structured {
  const pruned: string[] = [];
  const walk = (node: JsonSchema | undefined, value: unknown, path: string, root: boolean): unknown => {
    if (!node || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      const items = node.items as JsonSchema | undefined;
      if (!items) return value.slice();
      return value.map((item, index) =>
        item !== null && typeof item === "object" ? walk(items, item, `${path}[${index}]`, false) : item,
      );
    }
    const properties = (node.properties ?? noProperties) as Record<string, JsonSchema>;
    const additional =
      typeof node.additionalProperties === "object" ? (node.additionalProperties as JsonSchema) : undefined;
    const keepUnknown = node["x-kubernetes-preserve-unknown-fields"] === true || additional !== undefined;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      const childSchema = own(properties, key) ?? additional;
      // The API server drops a null where the schema does not say nullable, before defaulting.
      if (child === null && childSchema && childSchema.nullable !== true) continue;
      if (childSchema || keepUnknown || (root && rootFields.has(key))) {
        // A path is rendered only for a container: only below one can a field be pruned.
        const kept =
          (root && key === "metadata") || !childSchema || child === null || typeof child !== "object"
            ? child
            : walk(childSchema, child, path ? `${path}.${key}` : key, false);
        setOwn(out, key, kept);
      } else {
        pruned.push(path ? `${path}.${key}` : key);
      }
    }
    for (const [key, child] of propertiesWithDefaults(properties)) {
      if (own(out, key) === undefined) {
        setOwn(out, key, walk(child, structuredClone(child.default), path ? `${path}.${key}` : key, false));
      }
    }
    return out;
  };
  return { object: walk(schema, object, "", true), pruned };
}

const noProperties: Record<string, JsonSchema> = {};

/** Each schema's properties that have a default, found once: most have none, and every object is walked. */
const withDefaults = new WeakMap<Record<string, JsonSchema>, [string, JsonSchema][]>();

function propertiesWithDefaults(properties: Record<string, JsonSchema>): [string, JsonSchema][] {
  let found = withDefaults.get(properties);
  if (!found) {
    found = Object.entries(properties).filter(([, child]) => child.default !== undefined);
    withDefaults.set(properties, found);
  }
  return found;
}
