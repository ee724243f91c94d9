import { type FieldError, fieldError } from "../admission/field-errors.js";
import { own } from "../admission/own-property.js";
import { FieldPath } from "../base/field-path.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { dns1035LabelProblems } from "../validation/names.js";
import { decodeObjectMeta, type ObjectMeta, validateObjectMeta } from "./object-meta.js";
import { markedWithin } from "./schema-marks.js";

const hasEmbeddedWithin = markedWithin(
  new WeakMap(),
  (schema) => schema["x-kubernetes-embedded-resource"] === true,
);

/**
 * What the API server checks inside each `x-kubernetes-embedded-resource` value of a custom resource
 * (apiextensions-apiserver `pkg/apiserver/schema/objectmeta`): apiVersion and kind present, strings, a
 * GroupVersion and a kind name; and the embedded metadata as apimachinery's ObjectMeta validation
 * checks any object's (name and generateName as path segments, namespace a DNS-1123 label, label keys
 * and values, annotation keys and their total size), with its messages. Not ratcheted: an update is
 * checked like a create.
 */
export function embeddedResourceErrors(schema: JsonSchema, object: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, object, FieldPath.root(""), errors);
  return errors.map((error) => ({ ...error, verbatim: true }));
}

function walk(schema: JsonSchema | undefined, value: unknown, path: FieldPath, errors: FieldError[]): void {
  if (!schema || !hasEmbeddedWithin(schema)) return;
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? (schema.items as JsonSchema) : undefined;
    value.forEach((item, i) => {
      walk(items, item, path.index(i), errors);
    });
    return;
  }
  if (!isObject(value)) return;
  if (schema["x-kubernetes-embedded-resource"] === true) errors.push(...embeddedErrors(value, path));
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JsonSchema)
    : undefined;
  for (const [key, child] of Object.entries(value)) {
    const property = properties ? own(properties, key) : undefined;
    if (property) walk(property, child, path.child(key), errors);
    else if (additional) walk(additional, child, path.key(key), errors);
  }
}

function embeddedErrors(object: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!Object.hasOwn(object, "apiVersion")) errors.push(fieldError.required(path.child("apiVersion")));
  if (!Object.hasOwn(object, "kind")) errors.push(fieldError.required(path.child("kind")));
  if (Object.hasOwn(object, "apiVersion"))
    errors.push(...apiVersionErrors(object.apiVersion, path.child("apiVersion")));
  if (Object.hasOwn(object, "kind")) errors.push(...kindErrors(object.kind, path.child("kind")));
  if (Object.hasOwn(object, "metadata"))
    errors.push(...metadataErrors(object.metadata, path.child("metadata")));
  return errors;
}

function apiVersionErrors(value: unknown, path: FieldPath): FieldError[] {
  if (typeof value !== "string") return [fieldError.invalid(path, value, "must be a string")];
  if (value === "") return [fieldError.invalid(path, value, "must not be empty")];
  // schema.ParseGroupVersion: "v1" and "group/version" parse, "/" is the empty GroupVersion, more
  // than one slash does not parse. The parts themselves are not checked here.
  if (value !== "/" && value.split("/").length > 2) {
    return [fieldError.invalid(path, value, `unexpected GroupVersion string: ${value}`)];
  }
  return [];
}

function kindErrors(value: unknown, path: FieldPath): FieldError[] {
  if (typeof value !== "string") return [fieldError.invalid(path, value, "must be a string")];
  if (value === "") return [fieldError.invalid(path, value, "must not be empty")];
  const problems = dns1035LabelProblems(value.toLowerCase(), 63);
  if (problems.length === 0) return [];
  return [
    fieldError.invalid(path, value, `may have mixed case, but should otherwise match: ${problems.join(",")}`),
  ];
}

/**
 * ObjectMeta as the API server validates an embedded resource's: decoded into ObjectMeta, named
 * "fakename" when unnamed, then checked as any object's metadata on create, with path-segment names
 * and a namespace required only when one is set.
 */
function metadataErrors(value: unknown, path: FieldPath): FieldError[] {
  const decoded = decodeObjectMeta(value, path.toString());
  if (decoded.error !== undefined) return [fieldError.invalid(path, value, decoded.error)];
  const meta: ObjectMeta = { ...decoded.meta, name: decoded.meta?.name || "fakename" };
  return validateObjectMeta(meta, path, { name: "pathSegment", requiresNamespace: Boolean(meta.namespace) });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
