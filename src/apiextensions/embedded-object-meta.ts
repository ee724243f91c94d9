import { type FieldError, fieldError } from "../admission/field-errors.js";
import { FieldPath } from "../admission/field-path.js";
import { own } from "../admission/own-property.js";
import type { JsonSchema } from "../codegen/schema-source.js";
import { goQuote } from "../go-template/go-strings.js";
import {
  dns1035LabelProblems,
  dns1123LabelProblems,
  dns1123SubdomainProblems,
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
  walk(schema, object, FieldPath.root(""), errors, false);
  return errors;
}

/**
 * The embedded resources' fields Go cannot decode (an apiVersion or kind that is no string, metadata
 * that is no ObjectMeta), in key order: the API server refuses the whole request while decoding the
 * first it meets (400, "cannot be handled as"), before any validation. It walks Go maps, in random
 * order: of several, the one it names varies from request to request.
 */
export function embeddedDecodeErrors(schema: JsonSchema, object: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, object, FieldPath.root(""), errors, true);
  return errors;
}

/**
 * The warnings the API server gives for finalizers an object adds (generateWarningsFromObj in
 * apiextensions-apiserver's customresource strategy): each new one, in sorted order, that is not a
 * qualified name or, without a "/", not one of Kubernetes' own.
 */
export function finalizerWarnings(metadata: unknown, oldMetadata?: unknown): string[] {
  const finalizersOf = (meta: unknown): string[] => {
    const list = isObject(meta) ? meta.finalizers : undefined;
    return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
  };
  const old = new Set(finalizersOf(oldMetadata));
  const added = [...new Set(finalizersOf(metadata))].filter((f) => !old.has(f)).sort();
  return added.flatMap((finalizer) => {
    const at = `metadata.finalizers: ${goQuote(finalizer)}: `;
    const warnings = qualifiedNameProblems(finalizer).map((problem) => `${at}${problem}`);
    if (!finalizer.includes("/") && !standardFinalizers.has(finalizer)) {
      warnings.push(
        finalizer.includes(".")
          ? `${at}prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`
          : `${at}prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
    return warnings;
  });
}

const standardFinalizers = new Set(["orphan", "foregroundDeletion", "kubernetes"]);

function walk(
  schema: JsonSchema | undefined,
  value: unknown,
  path: FieldPath,
  errors: FieldError[],
  decodeOnly: boolean,
): void {
  if (!schema || !hasEmbeddedWithin(schema)) return;
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? (schema.items as JsonSchema) : undefined;
    value.forEach((item, i) => {
      walk(items, item, path.index(i), errors, decodeOnly);
    });
    return;
  }
  if (!isObject(value)) return;
  if (schema["x-kubernetes-embedded-resource"] === true) {
    if (!decodeOnly) errors.push(...embeddedErrors(value, path));
    else if (isObject(value)) errors.push(...embeddedDecodeProblems(value, path));
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JsonSchema)
    : undefined;
  for (const [key, child] of Object.entries(value)) {
    const property = properties ? own(properties, key) : undefined;
    if (property) walk(property, child, path.child(key), errors, decodeOnly);
    else if (additional) walk(additional, child, path.key(key), errors, decodeOnly);
  }
}

/**
 * What schemaobjectmeta's coercion refuses while decoding an embedded resource: an apiVersion or kind
 * that is set but not a string (null included), metadata Go cannot decode into an ObjectMeta.
 */
function embeddedDecodeProblems(object: Record<string, unknown>, path: FieldPath): FieldError[] {
  const problems: FieldError[] = [];
  for (const key of ["apiVersion", "kind"]) {
    if (Object.hasOwn(object, key) && typeof object[key] !== "string")
      problems.push(fieldError.invalid(path.child(key), object[key], "must be a string"));
  }
  if (object.metadata !== undefined && object.metadata !== null) {
    const decodeError = objectMetaDecodeError(object.metadata);
    if (decodeError) problems.push(fieldError.invalid(path.child("metadata"), object.metadata, decodeError));
  }
  return problems;
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
  // The API server names an unnamed embedded object "fakename" before validating it.
  return objectMetaErrors(
    value as ObjectMeta,
    path,
    (name, prefix) => pathSegmentNameProblems(name, prefix),
    "fakename",
  );
}

/**
 * A custom resource's own metadata as the API server validates it (apiextensions-apiserver
 * pkg/registry/customresource/validator.go: ValidateObjectMeta with NameIsDNSSubdomain), once it has
 * decoded (`objectMetaDecodeError` first). The namespace is the request's, so only its syntax is checked.
 */
export function rootMetadataErrors(metadata: unknown): FieldError[] {
  const meta = (isObject(metadata) ? metadata : {}) as ObjectMeta;
  return objectMetaErrors(meta, FieldPath.root("metadata"), dnsSubdomainName, undefined);
}

/** NameIsDNSSubdomain: a generated name's prefix is checked with its trailing "-" masked. */
function dnsSubdomainName(name: string, prefix: boolean): string[] {
  return dns1123SubdomainProblems(prefix && name.endsWith("-") ? `${name.slice(0, -1)}a` : name);
}

function objectMetaErrors(
  meta: ObjectMeta,
  path: FieldPath,
  nameProblems: (name: string, prefix: boolean) => string[],
  unnamed: string | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  if (meta.generateName) {
    for (const problem of nameProblems(meta.generateName, true)) {
      errors.push(fieldError.invalid(path.child("generateName"), meta.generateName, problem));
    }
  }
  const name = meta.name || unnamed;
  if (name === undefined) {
    if (!meta.generateName)
      errors.push(fieldError.required(path.child("name"), "name or generateName is required"));
  } else {
    for (const problem of nameProblems(name, false)) {
      errors.push(fieldError.invalid(path.child("name"), name, problem));
    }
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
  const finalizersPath = path.child("finalizers");
  for (const finalizer of meta.finalizers ?? []) {
    for (const problem of qualifiedNameProblems(finalizer ?? ""))
      errors.push(fieldError.invalid(finalizersPath, finalizer, problem));
  }
  if (meta.finalizers?.includes("orphan") && meta.finalizers.includes("foregroundDeletion")) {
    errors.push(
      fieldError.invalid(
        finalizersPath,
        meta.finalizers,
        "finalizer orphan and foregroundDeletion cannot be both set",
      ),
    );
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
  finalizers?: (string | null)[] | null;
}

/** The fields checked here with their Go types; other ObjectMeta fields are left to their own checks. */
const stringFields = ["name", "generateName", "namespace"] as const;
const mapFields = ["labels", "annotations"] as const;

/** Go's `json: cannot unmarshal ...` for a field of the wrong type, or undefined when it decodes. */
export function objectMetaDecodeError(value: unknown): string | undefined {
  if (!isObject(value))
    return `json: cannot unmarshal ${jsonType(value)} into Go value of type v1.ObjectMeta`;
  // The API server encodes the map again (keys sorted) before decoding it: the first error in that order.
  for (const field of Object.keys(value).sort()) {
    const fieldValue = value[field];
    if (fieldValue === undefined || fieldValue === null) continue;
    if ((stringFields as readonly string[]).includes(field) && typeof fieldValue !== "string")
      return cannotUnmarshal(fieldValue, field, "string");
    if (field === "generation" && !Number.isInteger(fieldValue))
      return cannotUnmarshal(fieldValue, field, "int64");
    if (field === "finalizers") {
      if (!Array.isArray(fieldValue)) return cannotUnmarshal(fieldValue, field, "[]string");
      const item = fieldValue.find((entry) => entry !== null && typeof entry !== "string");
      if (item !== undefined) return cannotUnmarshal(item, field, "string");
    }
    if ((mapFields as readonly string[]).includes(field)) {
      if (!isObject(fieldValue)) return cannotUnmarshal(fieldValue, field, "map[string]string");
      for (const key of Object.keys(fieldValue).sort()) {
        const entry = fieldValue[key];
        if (entry !== null && typeof entry !== "string") return cannotUnmarshal(entry, field, "string");
      }
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
