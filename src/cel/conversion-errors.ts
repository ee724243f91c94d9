import type { JsonSchema } from "../schema/schema-source.js";

/**
 * Where a value does not have the type its schema gives it, and the error the API server's CEL value
 * conversion (apiserver's UnstructuredToVal) gives a rule that reads it, e.g. `invalid data, expected a
 * map for the provided schema with type=object`. A rule sees such values only on an UPDATE whose type
 * errors were ratcheted (a legacy object); on CREATE a type error keeps the rules from running at all.
 */
export interface Mismatch {
  /** The keys and indexes from the rule's value down. */
  path: (string | number)[];
  message: string;
}

export function conversionMismatches(value: unknown, schema: JsonSchema | undefined): Mismatch[] {
  const found: Mismatch[] = [];
  walk(value, schema, [], found);
  return found;
}

function walk(value: unknown, schema: JsonSchema | undefined, path: (string | number)[], found: Mismatch[]) {
  if (!schema || found.length > 100) return;
  const problem = mismatch(value, schema);
  if (problem) {
    found.push({ path, message: problem });
    return;
  }
  if (Array.isArray(value)) {
    const items = isSchema(schema.items) ? schema.items : undefined;
    value.forEach((item, i) => {
      walk(item, items, [...path, i], found);
    });
  } else if (value !== null && typeof value === "object") {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const additional = isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
    for (const [key, child] of Object.entries(value)) {
      walk(child, Object.hasOwn(properties, key) ? properties[key] : additional, [...path, key], found);
    }
  }
}

/** Go's %T of a decoded JSON value. */
function goType(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  return Array.isArray(value) ? "[]interface {}" : "map[string]interface {}";
}

function mismatch(value: unknown, schema: JsonSchema): string | undefined {
  if (value === null || value === undefined)
    return schema.nullable === true ? undefined : "invalid data, got null for schema with nullable=false";
  if (schema["x-kubernetes-int-or-string"] === true) {
    return typeof value === "string" || (typeof value === "number" && Number.isInteger(value))
      ? undefined
      : "invalid data, expected XIntOrString value to be either a string or integer";
  }
  const isMap = typeof value === "object" && !Array.isArray(value);
  switch (schema.type) {
    case "object":
      return isMap ? undefined : "invalid data, expected a map for the provided schema with type=object";
    case "array":
      return Array.isArray(value)
        ? undefined
        : "invalid data, expected an array for the provided schema with type=array";
    case "string":
      return typeof value === "string" ? undefined : `invalid data, expected string, got ${goType(value)}`;
    case "number":
      return typeof value === "number" ? undefined : `invalid data, expected float, got ${goType(value)}`;
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
        ? undefined
        : `invalid data, expected int, got ${goType(value)}`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `invalid data, expected bool, got ${goType(value)}`;
    default:
      return undefined;
  }
}

/** A mismatched value as the API server's conversion leaves it: an error, raised where a rule reads it. */
export class ConversionError {
  constructor(readonly message: string) {}
}

/**
 * The value with each mismatched value replaced by its ConversionError (which ./to-cel.ts turns into a
 * CEL error value), so that a rule fails with it exactly where it reads one; undefined when the value
 * itself is mismatched.
 */
export function withConversionErrors(value: unknown, mismatches: Mismatch[]): unknown {
  const copy = structuredClone(value);
  for (const { path, message } of mismatches) {
    if (path.length === 0) return undefined;
    let node = copy as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
    node[path[path.length - 1] as string | number] = new ConversionError(message);
  }
  return copy;
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
