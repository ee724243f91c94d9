import { type FieldError, fieldError } from "../admission/field-errors.js";
import { FieldPath } from "../admission/field-path.js";
import { own } from "../admission/own-property.js";
import type { JsonSchema } from "../codegen/schema-source.js";
import {
  dns1035LabelProblems,
  dns1123LabelProblems,
  labelValueProblems,
  pathSegmentNameProblems,
  qualifiedNameProblems,
} from "../validation/names.js";
import { markedWithin } from "./schema-marks.js";

const hasEmbeddedWithin = markedWithin(
  new WeakMap(),
  (schema) => schema["x-kubernetes-embedded-resource"] === true,
);

/** apimachinery's limit on the sum of an object's annotation keys and values. */
const totalAnnotationBytes = 256 * 1024;

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
  return errors;
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
 * ObjectMeta, decoded as Go's encoding/json decodes it (a value of the wrong type is a decode error,
 * in its wording), then validated as apimachinery's ValidateObjectMeta validates it, with the name
 * rule the apiextensions server passes (a path segment) and a namespace required only when set.
 */
function metadataErrors(value: unknown, path: FieldPath): FieldError[] {
  if (value === null) return [];
  const decodeError = objectMetaDecodeError(value);
  if (decodeError) return [fieldError.invalid(path, value, decodeError)];
  const meta = value as ObjectMeta;
  const errors: FieldError[] = [];
  if (meta.generateName) {
    for (const problem of pathSegmentNameProblems(meta.generateName, true)) {
      errors.push(fieldError.invalid(path.child("generateName"), meta.generateName, problem));
    }
  }
  // The API server names an unnamed embedded object "fakename" before validating it.
  const name = meta.name || "fakename";
  for (const problem of pathSegmentNameProblems(name, false)) {
    errors.push(fieldError.invalid(path.child("name"), name, problem));
  }
  if (meta.namespace) {
    for (const problem of dns1123LabelProblems(meta.namespace)) {
      errors.push(fieldError.invalid(path.child("namespace"), meta.namespace, problem));
    }
  }
  if (typeof meta.generation === "number" && meta.generation < 0) {
    errors.push(
      fieldError.invalid(path.child("generation"), meta.generation, "must be greater than or equal to 0"),
    );
  }
  const labelsPath = path.child("labels");
  for (const [key, labelValue] of Object.entries(meta.labels ?? {})) {
    for (const problem of qualifiedNameProblems(key))
      errors.push(fieldError.invalid(labelsPath, key, problem));
    // A null value decodes as "" in Go.
    for (const problem of labelValueProblems(labelValue ?? "")) {
      errors.push(fieldError.invalid(labelsPath, labelValue, problem));
    }
  }
  const annotationsPath = path.child("annotations");
  let annotationBytes = 0;
  for (const [key, annotation] of Object.entries(meta.annotations ?? {})) {
    for (const problem of qualifiedNameProblems(key.toLowerCase())) {
      errors.push(fieldError.invalid(annotationsPath, key, problem));
    }
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(annotation ?? "");
  }
  if (annotationBytes > totalAnnotationBytes) {
    errors.push(fieldError.tooLong(annotationsPath, `may not be more than ${totalAnnotationBytes} bytes`));
  }
  return errors;
}

interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  generation?: number;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
}

/** The fields checked here with their Go types; other ObjectMeta fields are left to their own checks. */
const stringFields = ["name", "generateName", "namespace"] as const;
const mapFields = ["labels", "annotations"] as const;

/** Go's `json: cannot unmarshal ...` for a field of the wrong type, or undefined when it decodes. */
function objectMetaDecodeError(value: unknown): string | undefined {
  if (!isObject(value))
    return `json: cannot unmarshal ${jsonType(value)} into Go value of type v1.ObjectMeta`;
  for (const field of stringFields) {
    const fieldValue = value[field];
    if (fieldValue !== undefined && fieldValue !== null && typeof fieldValue !== "string") {
      return cannotUnmarshal(fieldValue, field, "string");
    }
  }
  if (value.generation !== undefined && value.generation !== null && !Number.isInteger(value.generation)) {
    return cannotUnmarshal(value.generation, "generation", "int64");
  }
  for (const field of mapFields) {
    const map = value[field];
    if (map === undefined || map === null) continue;
    if (!isObject(map)) return cannotUnmarshal(map, field, "map[string]string");
    for (const entry of Object.values(map)) {
      if (entry !== null && typeof entry !== "string") return cannotUnmarshal(entry, field, "string");
    }
  }
  return undefined;
}

function cannotUnmarshal(value: unknown, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonType(value)} into Go struct field ObjectMeta.${field} of type ${goType}`;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "object") return "object";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
