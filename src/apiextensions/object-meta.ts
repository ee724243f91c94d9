import { Buffer } from "node:buffer";
import { type FieldError, goValue } from "../admission/field-errors.js";
import { FieldPath } from "../base/field-path.js";
import { goTimeParseError } from "../go/time/parse.js";
import {
  dns1123LabelProblems,
  dns1123SubdomainProblems,
  labelValueProblems,
  pathSegmentNameProblems,
  qualifiedNameProblems,
} from "../validation/names.js";

/**
 * metav1.ObjectMeta as the API server reads a custom resource's metadata (and an embedded resource's):
 * decoded as Go's case-sensitive encoding/json decodes it into the typed struct (a value of the wrong
 * type is an error in its wording; under strict field validation an unknown field is one too), written
 * back as Go writes it (empty fields omitted), and validated as apimachinery's ObjectMeta validation
 * validates it, with its messages.
 */

/** A Go type the decoder knows, with the name its errors give it. */
type GoType =
  | { kind: "string"; name: string }
  | { kind: "int64"; pointer?: true }
  | { kind: "bool" }
  | { kind: "time" }
  | { kind: "raw" }
  | { kind: "map"; name: string }
  | { kind: "slice"; name: string; item: GoType }
  | { kind: "struct"; name: string; fields: Record<string, GoType> };

const string: GoType = { kind: "string", name: "string" };
const int64: GoType = { kind: "int64" };
const bool: GoType = { kind: "bool" };
const time: GoType = { kind: "time" };

const ownerReference: GoType = {
  kind: "struct",
  name: "OwnerReference",
  fields: {
    apiVersion: string,
    kind: string,
    name: string,
    uid: { kind: "string", name: "types.UID" },
    controller: bool,
    blockOwnerDeletion: bool,
  },
};

const managedFieldsEntry: GoType = {
  kind: "struct",
  name: "ManagedFieldsEntry",
  fields: {
    manager: string,
    operation: { kind: "string", name: "v1.ManagedFieldsOperationType" },
    apiVersion: string,
    time,
    fieldsType: string,
    fieldsV1: { kind: "raw" },
    subresource: string,
  },
};

const objectMetaType: GoType = {
  kind: "struct",
  name: "ObjectMeta",
  fields: {
    name: string,
    generateName: string,
    namespace: string,
    selfLink: string,
    uid: { kind: "string", name: "types.UID" },
    resourceVersion: string,
    generation: int64,
    creationTimestamp: time,
    deletionTimestamp: time,
    // A pointer: written back even when 0.
    deletionGracePeriodSeconds: { kind: "int64", pointer: true },
    labels: { kind: "map", name: "map[string]string" },
    annotations: { kind: "map", name: "map[string]string" },
    ownerReferences: { kind: "slice", name: "[]v1.OwnerReference", item: ownerReference },
    finalizers: { kind: "slice", name: "[]string", item: string },
    managedFields: { kind: "slice", name: "[]v1.ManagedFieldsEntry", item: managedFieldsEntry },
  },
};

/** The decoded ObjectMeta, as the plain JSON object Go would write back (empty fields left out). */
export type ObjectMeta = Record<string, unknown> & {
  name?: string;
  generateName?: string;
  namespace?: string;
  generation?: number;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Record<string, unknown>[];
  finalizers?: string[];
  managedFields?: Record<string, unknown>[];
};

export interface DecodedMeta {
  /** Undefined when it does not decode. */
  meta?: ObjectMeta;
  /** Go's decoding error (the first one), when it does not decode. */
  error?: string;
  /** Paths of the fields ObjectMeta does not have (`metadata.foo`, `metadata.ownerReferences[0].x`). */
  unknown: string[];
}

/**
 * Decodes `value` into ObjectMeta as the API server does (the metadata alone); `at` is the path of the
 * metadata field. `within` decodes it as the `metadata` field of a struct, as kubectl does before it
 * sends a manifest: its errors then name the whole path (`ObjectMeta.metadata.labels`).
 */
export function decodeObjectMeta(value: unknown, at: string, within?: { struct: string }): DecodedMeta {
  const context: DecodeContext = { unknown: [], at };
  if (!isRecord(value)) {
    if (value === null) return { meta: {}, unknown: [] };
    const into = within ? `Go struct field ${within.struct}.metadata` : "Go value";
    return {
      error: `json: cannot unmarshal ${jsonName(value)} into ${into} of type v1.ObjectMeta`,
      unknown: [],
    };
  }
  const meta = decodeStruct(objectMetaType as StructType, value, context, within ? ["metadata"] : [], at);
  if (context.error !== undefined) return { error: context.error, unknown: context.unknown };
  return { meta: meta as ObjectMeta, unknown: context.unknown };
}

type StructType = Extract<GoType, { kind: "struct" }>;

interface DecodeContext {
  error?: string;
  unknown: string[];
  at: string;
}

/** Decodes a struct; `stack` is Go's field stack (JSON names from ObjectMeta down), for errors. */
function decodeStruct(
  type: StructType,
  value: Record<string, unknown>,
  context: DecodeContext,
  stack: string[],
  path: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // The API server encodes the request's map again (keys sorted) before Go decodes it into ObjectMeta:
  // of several fields that do not decode, the first in that order is named.
  for (const key of Object.keys(value).sort()) {
    const child = value[key];
    const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
    if (!field) {
      context.unknown.push(`${path}.${key}`);
      continue;
    }
    const decoded = decodeValue(field, child, context, type.name, [...stack, key], `${path}.${key}`);
    if (decoded !== undefined && !isEmpty(field, decoded)) out[key] = decoded;
  }
  return out;
}

function decodeValue(
  type: GoType,
  value: unknown,
  context: DecodeContext,
  struct: string,
  stack: string[],
  path: string,
): unknown {
  if (value === null || value === undefined) return undefined;
  const mismatch = (goType: string, jsonValue = jsonName(value)) => {
    context.error ??= `json: cannot unmarshal ${jsonValue} into Go struct field ${struct}.${stack.join(".")} of type ${goType}`;
    return undefined;
  };
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? value : mismatch(type.name);
    case "bool":
      return typeof value === "boolean" ? value : mismatch("bool");
    case "int64":
      if (typeof value === "bigint") return value;
      if (typeof value !== "number") return mismatch("int64");
      if (!Number.isInteger(value) || Math.abs(value) >= 2 ** 63)
        return mismatch("int64", `number ${goNumberText(value)}`);
      return value;
    case "time": {
      // metav1.Time's UnmarshalJSON: a string, parsed as RFC 3339; its errors come unwrapped.
      if (typeof value !== "string") return mismatch("string");
      const problem = goTimeParseError(value);
      if (problem !== undefined) {
        context.error ??= problem;
        return undefined;
      }
      return value;
    }
    case "raw":
      return value;
    case "map": {
      if (!isRecord(value)) return mismatch(type.name);
      const out: Record<string, string> = {};
      for (const key of Object.keys(value).sort()) {
        const entry = value[key];
        if (entry === null) {
          out[key] = "";
          continue;
        }
        if (typeof entry !== "string") return mismatch("string", jsonName(entry));
        out[key] = entry;
      }
      return out;
    }
    case "slice": {
      if (!Array.isArray(value)) return mismatch(type.name);
      return value.map((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (type.item.kind === "struct") {
          if (item === null) return {};
          if (!isRecord(item)) return mismatch(`v1.${type.item.name}`, jsonName(item));
          return decodeStruct(type.item, item, context, stack, itemPath);
        }
        const decoded = decodeValue(type.item, item, context, struct, stack, itemPath);
        return decoded ?? "";
      });
    }
    case "struct":
      if (!isRecord(value)) return mismatch(`v1.${type.name}`);
      return decodeStruct(type, value, context, stack, path);
  }
}

/** Fields Go leaves out when it writes ObjectMeta back (`omitempty`). */
function isEmpty(type: GoType, value: unknown): boolean {
  if (type.kind === "string") return value === "";
  if (type.kind === "int64" && value === 0) return type.pointer !== true;
  if (type.kind === "map") return Object.keys(value as object).length === 0;
  if (type.kind === "slice") return (value as unknown[]).length === 0;
  return false;
}

/** encoding/json's name for a JSON value's kind in its errors. */
function jsonName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "object") return "object";
  if (typeof value === "boolean") return "bool";
  return typeof value === "number" || typeof value === "bigint" ? "number" : "string";
}

/** A number's JSON text as Go decoded it (`1.5`, `1e+20`). */
function goNumberText(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e21
    ? String(value)
    : goValue(value).replace("e+", "e+");
}

export interface MetaValidation {
  /** What the API server names with: a DNS subdomain for a resource, a path segment for an embedded one. */
  name: "subdomain" | "pathSegment";
  /** Whether a namespace is required (a namespaced kind's object; an embedded one with a namespace). */
  requiresNamespace: boolean;
}

/**
 * apimachinery's ValidateObjectMetaAccessor (CREATE): name and generateName by the given rule,
 * namespace, generation, labels, annotations, owner references, finalizers and managed fields.
 */
export function validateObjectMeta(meta: ObjectMeta, path: FieldPath, options: MetaValidation): FieldError[] {
  const errors: FieldError[] = [];
  const nameProblems = (name: string, prefix: boolean) =>
    options.name === "subdomain" ? nameIsDnsSubdomain(name, prefix) : pathSegmentNameProblems(name, prefix);
  if (meta.generateName) {
    for (const problem of nameProblems(meta.generateName, true))
      errors.push(invalid(path.child("generateName"), meta.generateName, problem));
  }
  if (!meta.name) {
    errors.push({ type: "required", field: path.child("name"), detail: "name or generateName is required" });
  } else {
    for (const problem of nameProblems(meta.name, false))
      errors.push(invalid(path.child("name"), meta.name, problem));
  }
  errors.push(...commonMetaErrors(meta, path, options.requiresNamespace));
  errors.push(...finalizerErrors(meta.finalizers ?? [], path.child("finalizers")));
  return errors.map((error) => ({ ...error, verbatim: true }));
}

/** The checks of ValidateObjectMetaAccessor after the name: shared by CREATE and (in part) UPDATE. */
function commonMetaErrors(meta: ObjectMeta, path: FieldPath, requiresNamespace: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (requiresNamespace) {
    if (!meta.namespace) errors.push({ type: "required", field: path.child("namespace") });
    else
      for (const problem of dns1123LabelProblems(meta.namespace))
        errors.push(invalid(path.child("namespace"), meta.namespace, problem));
  } else if (meta.namespace) {
    errors.push({ type: "forbidden", field: path.child("namespace"), detail: "not allowed on this type" });
  }
  if (typeof meta.generation === "number" && meta.generation < 0) {
    errors.push(invalid(path.child("generation"), meta.generation, "must be greater than or equal to 0"));
  }
  errors.push(...labelsAnnotationsOwners(meta, path));
  return errors;
}

function labelsAnnotationsOwners(meta: ObjectMeta, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const labels = path.child("labels");
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const problem of qualifiedNameProblems(key)) errors.push(invalid(labels, key, problem));
    for (const problem of labelValueProblems(value)) errors.push(invalid(labels, value, problem));
  }
  const annotations = path.child("annotations");
  let size = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const problem of qualifiedNameProblems(key.toLowerCase()))
      errors.push(invalid(annotations, key, problem));
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > totalAnnotationBytes) {
    errors.push({
      type: "tooLong",
      field: annotations,
      detail: `may not be more than ${totalAnnotationBytes} bytes`,
    });
  }
  errors.push(...ownerReferenceErrors(meta.ownerReferences ?? [], path.child("ownerReferences")));
  errors.push(...managedFieldsErrors(meta.managedFields ?? [], path.child("managedFields")));
  return errors;
}

/** apimachinery's limit on the sum of an object's annotation keys and values. */
const totalAnnotationBytes = 256 * 1024;

function ownerReferenceErrors(references: Record<string, unknown>[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let firstController = "";
  references.forEach((reference, i) => {
    const at = path.index(i);
    const apiVersion = String(reference.apiVersion ?? "");
    const kind = String(reference.kind ?? "");
    const group = groupVersion(apiVersion);
    if (apiVersion === "")
      errors.push({ type: "required", field: at.child("apiVersion"), detail: "must not be empty" });
    else if (group === undefined || group.version === "")
      errors.push(invalid(at.child("apiVersion"), apiVersion, "must be <group>/<version> or <version>"));
    if (kind === "") errors.push({ type: "required", field: at.child("kind"), detail: "must not be empty" });
    if (!reference.name)
      errors.push({ type: "required", field: at.child("name"), detail: "must not be empty" });
    if (!reference.uid)
      errors.push({ type: "required", field: at.child("uid"), detail: "must not be empty" });
    if (group?.group === "" && group.version === "v1" && kind === "Event") {
      errors.push(invalid(at, reference, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (reference.controller === true) {
      const current = `${kind}/${String(reference.name ?? "")}`;
      if (firstController !== "") {
        errors.push(
          invalid(
            path,
            references,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else firstController = current;
    }
  });
  return errors;
}

function managedFieldsErrors(entries: Record<string, unknown>[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  entries.forEach((entry, i) => {
    const at = path.index(i);
    const operation = String(entry.operation ?? "");
    if (operation === "")
      errors.push({ type: "required", field: at.child("operation"), detail: "must not be empty" });
    else if (operation !== "Apply" && operation !== "Update") {
      errors.push({
        type: "notSupported",
        field: at.child("operation"),
        value: operation,
        detail: 'supported values: "Apply", "Update"',
      });
    }
    const fieldsType = String(entry.fieldsType ?? "");
    if (fieldsType !== "" && fieldsType !== "FieldsV1")
      errors.push(invalid(at.child("fieldsType"), fieldsType, "must be `FieldsV1`"));
  });
  return errors;
}

/** ValidateFinalizers: each a qualified name, and not both orphan and foregroundDeletion. */
function finalizerErrors(finalizers: string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const finalizer of finalizers) {
    for (const problem of qualifiedNameProblems(finalizer)) errors.push(invalid(path, finalizer, problem));
  }
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errors.push(invalid(path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errors;
}

/**
 * ValidateObjectMetaAccessorUpdate, as far as a client that sends the object it read can fail it:
 * no new finalizers on an object being deleted, labels, annotations, owner references and managed
 * fields. (Name, namespace, uid and timestamps are the object's own; finalizer names are not checked.)
 */
export function validateObjectMetaUpdate(
  meta: ObjectMeta,
  oldMeta: ObjectMeta,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    const old = new Set(oldMeta.finalizers ?? []);
    const added = [...new Set((meta.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (added.length > 0) {
      errors.push({
        type: "forbidden",
        field: path.child("finalizers"),
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
      });
    }
  }
  if (typeof meta.generation === "number" && meta.generation < 0) {
    errors.push(invalid(path.child("generation"), meta.generation, "must be greater than or equal to 0"));
  }
  errors.push(...labelsAnnotationsOwners(meta, path));
  return errors.map((error) => ({ ...error, verbatim: true }));
}

/**
 * The API server's own check of a created object's name after its schema's (path segment names:
 * never `.` or `..`, no `/` or `%`), run only when nothing else was found.
 */
export function pathSegmentNameErrors(meta: ObjectMeta, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (meta.generateName) {
    for (const problem of pathSegmentNameProblems(meta.generateName, true))
      errors.push(invalid(path.child("generateName"), meta.generateName, problem));
  }
  if (meta.name) {
    for (const problem of pathSegmentNameProblems(meta.name, false))
      errors.push(invalid(path.child("name"), meta.name, problem));
  }
  return errors.map((error) => ({ ...error, verbatim: true }));
}

/** The warnings a create or update gets for each finalizer it adds that is not domain-qualified. */
export function finalizerWarnings(finalizers: string[], oldFinalizers: string[] = []): string[] {
  const old = new Set(oldFinalizers);
  const added = [...new Set(finalizers.filter((f) => !old.has(f)))].sort();
  const warnings: string[] = [];
  const at = "metadata.finalizers";
  for (const finalizer of added) {
    const quoted = JSON.stringify(finalizer);
    for (const problem of qualifiedNameProblems(finalizer)) warnings.push(`${at}: ${quoted}: ${problem}`);
    if (!finalizer.includes("/") && !standardFinalizers.has(finalizer)) {
      warnings.push(
        finalizer.includes(".")
          ? `${at}: ${quoted}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`
          : `${at}: ${quoted}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  return warnings;
}

const standardFinalizers = new Set(["orphan", "foregroundDeletion", "kubernetes"]);

/** NameIsDNSSubdomain: a generateName is checked with a trailing dash masked. */
function nameIsDnsSubdomain(name: string, prefix: boolean): string[] {
  const masked = prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
  return dns1123SubdomainProblems(masked);
}

/** schema.ParseGroupVersion: `v1`, `group/version`; more than one slash does not parse. */
function groupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  return undefined;
}

function invalid(field: FieldPath, value: unknown, detail: string): FieldError {
  return { type: "invalid", field, value, detail };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export { FieldPath };
