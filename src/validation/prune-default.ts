import { own, setOwn } from "../admission/own-property.js";
import { FieldPath } from "../base/field-path.js";
import type { JsonSchema } from "../schema/schema-source.js";

export interface Structured {
  /** The object as the API server stores it: defaults applied, unknown fields dropped. */
  object: unknown;
  /** Field paths the API server would prune silently (`spec.helm.relaseName`). */
  pruned: FieldPath[];
}

/**
 * Fields the API server keeps on every object, and on every embedded resource, whatever the schema says
 * (ObjectMeta is decoded apart).
 */
const rootFields = new Set(["apiVersion", "kind", "metadata"]);

/**
 * What the API server does to a custom resource before validating it, driven by the CRD's structural
 * schema: unknown fields are pruned (unless `x-kubernetes-preserve-unknown-fields`), nulls dropped where
 * the schema does not say `nullable`, and `default`s fill absent properties of objects that are present.
 * Pure: the input is never changed. What pruning and defaulting leave as it was is shared with the
 * input, not copied (most of an object is, and `validate` reads every manifest through here).
 */
export function pruneAndDefault(schema: JsonSchema, object: unknown): Structured {
  const pruned: FieldPath[] = [];
  // The path to the value being walked, one array pushed and popped: a FieldPath is made only for a
  // field pruned (most objects have none), from the same steps.
  const steps: (string | number)[] = [];
  const walk = (node: JsonSchema | undefined, value: unknown, root: boolean): unknown => {
    if (!node || value === null || typeof value !== "object") return value;
    const plan = planOf(node);
    if (Array.isArray(value)) {
      const items = plan.items;
      if (!items) return value;
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (item === null || typeof item !== "object") continue;
        steps.push(index);
        const kept = walk(items, item, false);
        steps.pop();
        if (kept === item) continue;
        copy ??= value.slice();
        copy[index] = kept;
      }
      return copy ?? value;
    }
    const record = value as Record<string, unknown>;
    const { properties, additional, keepUnknown } = plan;
    // The root is an embedded resource too: its apiVersion, kind and metadata are ObjectMeta's business.
    const embedded = root || plan.embedded;
    const keys = Object.keys(record);
    // Made at the first change, with the keys before it (all kept as they were).
    let out: Record<string, unknown> | undefined;
    const change = (upTo: number) => {
      if (out) return out;
      out = {};
      for (const key of keys.slice(0, upTo)) setOwn(out, key, record[key]);
      return out;
    };
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const child = record[key];
      const childSchema = properties.get(key) ?? additional;
      const kept = childSchema || keepUnknown || (embedded && rootFields.has(key));
      if (!kept) pruned.push(FieldPath.of([...steps, key]));
      // The API server drops a null where the schema does not say nullable, before defaulting.
      if (!kept || (child === null && childSchema && !planOf(childSchema).nullable)) {
        change(i);
        continue;
      }
      let walked = child;
      if (!(embedded && rootFields.has(key)) && childSchema && child !== null && typeof child === "object") {
        steps.push(key);
        walked = walk(childSchema, child, false);
        steps.pop();
      }
      if (walked !== child) change(i);
      if (out) setOwn(out, key, walked);
    }
    for (const [key, child] of plan.defaults) {
      if (own(out ?? record, key) === undefined) {
        steps.push(key);
        const filled = walk(child, structuredClone(child.default), false);
        steps.pop();
        setOwn(change(keys.length), key, filled);
      }
    }
    return out ?? value;
  };
  return { object: walk(schema, object, true), pruned };
}

/**
 * What the walk reads of a schema node, read once per node: schema nodes are objects of many shapes,
 * and reading their keywords at every value walked was most of the walk's cost (lookups V8 cannot
 * cache). Each field is the expression the walk evaluated before.
 */
interface Plan {
  items: JsonSchema | undefined;
  /** `own(properties, key)` for each own key of `properties`. */
  properties: Map<string, JsonSchema>;
  /** `additionalProperties` when it is an object (null included, as `typeof` says). */
  additional: JsonSchema | undefined;
  keepUnknown: boolean;
  embedded: boolean;
  nullable: boolean;
  defaults: [string, JsonSchema][];
}

const plans = new WeakMap<object, Plan>();

function planOf(node: JsonSchema): Plan {
  const isObject = typeof node === "object" && node !== null;
  const known = isObject ? plans.get(node) : undefined;
  if (known) return known;
  const properties = (node.properties ?? noProperties) as Record<string, JsonSchema>;
  const additional =
    typeof node.additionalProperties === "object" ? (node.additionalProperties as JsonSchema) : undefined;
  const plan: Plan = {
    items: node.items as JsonSchema | undefined,
    properties: new Map(Object.keys(properties).map((key) => [key, properties[key] as JsonSchema])),
    additional,
    keepUnknown: node["x-kubernetes-preserve-unknown-fields"] === true || additional !== undefined,
    embedded: node["x-kubernetes-embedded-resource"] === true,
    nullable: node.nullable === true,
    defaults: propertiesWithDefaults(properties),
  };
  if (isObject) plans.set(node, plan);
  return plan;
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
