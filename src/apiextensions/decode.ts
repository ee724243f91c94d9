import { goErrorBody } from "../admission/field-errors.js";
import { setOwn } from "../admission/own-property.js";
import { FieldPath } from "../base/field-path.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { pruneAndDefault } from "../validation/prune-default.js";
import { decodeObjectMeta } from "./object-meta.js";
import { markedWithin } from "./schema-marks.js";

/** Whether a schema node or any node below it is an embedded resource: most subtrees hold none. */
const hasEmbeddedWithin = markedWithin(
  new WeakMap(),
  (schema) => schema["x-kubernetes-embedded-resource"] === true,
);

/**
 * How the API server decodes a custom resource from a request body (apiextensions-apiserver's
 * schema-coercing decoder, then its defaulter): the root metadata decoded into ObjectMeta and written
 * back as Go writes it; unknown fields pruned (their paths reported); nulls dropped where the schema
 * neither allows nor defaults them; embedded resources' apiVersion and kind required to be strings and
 * their metadata decoded as ObjectMeta too; then `default`s filled in.
 *
 * Under strict field validation (what `kubectl apply` asks for) an unknown field is an error, the whole
 * request refused before anything else looks at it; otherwise (the server's default, and what a GitOps
 * tool that names nothing gets) each is a warning.
 */
export interface Decoded {
  /** The object as decoded and defaulted; undefined when it cannot be decoded. */
  object?: Record<string, unknown>;
  /** `unknown field "spec.helm.relaseName"`, one per field dropped: a warning, unless `error`. */
  unknownFields: string[];
  /** The BadRequest the server answers, when it refuses to decode the object. */
  error?: string;
  /** Where the pruned fields were, for locating their warnings. */
  pruned: FieldPath[];
}

export interface DecodeTarget {
  schema: JsonSchema;
  kind: string;
  version: string;
}

export function decodeCustomResource(
  target: DecodeTarget,
  body: Record<string, unknown>,
  strict: boolean,
): Decoded {
  const refused = (reason: string): Decoded => ({
    unknownFields: [],
    pruned: [],
    error: `${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}: ${reason}`,
  });
  const unknown: string[] = [];
  let metadata: Record<string, unknown> | undefined;
  if (Object.hasOwn(body, "metadata")) {
    const decoded = decodeObjectMeta(body.metadata, "metadata");
    if (decoded.error !== undefined) return refused(decoded.error);
    metadata = decoded.meta;
    unknown.push(...decoded.unknown);
  }
  const structured = pruneAndDefault(target.schema, body);
  unknown.push(...structured.pruned.map(String).sort());
  const object = structured.object as Record<string, unknown>;
  const coerced = coerceEmbedded(target.schema, object);
  if ("error" in coerced) return refused(coerced.error);
  unknown.push(...coerced.unknown.sort());
  // A copy: pruning shares what it leaves as it was with the request body, which is not to change.
  const written = { ...(coerced.object as Record<string, unknown>) };
  if (metadata !== undefined) written.metadata = metadata;
  const messages = unknown.map((field) => `unknown field "${field}"`);
  if (strict && messages.length > 0) return refused(`strict decoding error: ${messages.join(", ")}`);
  const ordered = goKeyOrder(written) as Record<string, unknown>;
  return { object: ordered, unknownFields: messages, pruned: structured.pruned };
}

/**
 * The object with its keys in the order Go writes a map (sorted by their bytes): what the webhooks and
 * CEL receive, and what is stored. A rule that stops after the first N keys (a bounded list of
 * warnings) sees the same N the webhook behind the API server sees. A map or list already in that
 * order is shared, not copied (most of a manifest is, and nothing changes a decoded object in place:
 * pruning and defaulting share what they leave, too).
 */
export function goKeyOrder(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = goKeyOrder(value[i]);
      if (item === value[i]) continue;
      copy ??= value.slice();
      copy[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++)
    ordered = byCodePoint(keys[i - 1] as string, keys[i] as string) < 0;
  // The children in key order; a list of them is made only at the first one that changed.
  let children: unknown[] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const child = record[keys[i] as string];
    const done = goKeyOrder(child);
    if (done !== child && children === undefined) {
      children = [];
      for (let j = 0; j < i; j++) children.push(record[keys[j] as string]);
    }
    children?.push(done);
  }
  // Only a plain object is shared: anything else (a Date from js-yaml) becomes one, as it always did.
  const plain = Object.getPrototypeOf(value) === Object.prototype;
  if (plain && ordered && children === undefined) return value;
  const childAt = (i: number) => (children === undefined ? record[keys[i] as string] : children[i]);
  const out: Record<string, unknown> = {};
  if (ordered) {
    for (let i = 0; i < keys.length; i++) setOwn(out, keys[i] as string, childAt(i));
    return out;
  }
  const order = keys.map((key, i) => [key, childAt(i)] as const);
  order.sort(([a], [b]) => byCodePoint(a, b));
  for (const [key, child] of order) setOwn(out, key, child);
  return out;
}

/** UTF-8 byte order, which is code point order (JavaScript's default sort compares UTF-16 units). */
function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only a surrogate against a unit above it orders differently by code point.
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff))
      return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
    return x - y;
  }
  return a.length - b.length;
}

/**
 * objectmeta.Coerce on the embedded resources below the root: apiVersion and kind must be strings,
 * metadata must decode as ObjectMeta (and is written back as Go writes it, fields it does not know
 * dropped). Copies what it changes.
 */
function coerceEmbedded(
  schema: JsonSchema,
  object: unknown,
): { object: unknown; unknown: string[] } | { error: string } {
  const unknown: string[] = [];
  /** The first embedded resource that does not decode: its field and Go's error body. */
  let failure: string | undefined;
  const fail = (field: string, value: unknown, detail: string) => {
    failure = `${field}: ${goErrorBody({ type: "invalid", field: FieldPath.empty, value, detail })}`;
  };
  const walk = (node: JsonSchema | undefined, value: unknown, path: string, root: boolean): unknown => {
    if (!node || failure || value === null || typeof value !== "object" || !hasEmbeddedWithin(node))
      return value;
    if (Array.isArray(value)) {
      const items = isSchema(node.items) ? node.items : undefined;
      const out = value.map((item, i) => walk(items, item, `${path}[${i}]`, false));
      return out.some((item, i) => item !== value[i]) ? out : value;
    }
    const record = value as Record<string, unknown>;
    let out = record;
    const set = (key: string, child: unknown) => {
      if (out === record) out = { ...record };
      out[key] = child;
    };
    const at = (key: string) => (path === "" ? key : `${path}.${key}`);
    if (!root && node["x-kubernetes-embedded-resource"] === true) {
      for (const key of ["apiVersion", "kind"]) {
        if (Object.hasOwn(record, key) && typeof record[key] !== "string") {
          fail(at(key), record[key], "must be a string");
          return value;
        }
      }
      if (Object.hasOwn(record, "metadata")) {
        const decoded = decodeObjectMeta(record.metadata, at("metadata"));
        if (decoded.error !== undefined) {
          fail(at("metadata"), record.metadata, decoded.error);
          return value;
        }
        unknown.push(...decoded.unknown);
        set("metadata", decoded.meta);
      }
    }
    const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
    const additional = isSchema(node.additionalProperties) ? node.additionalProperties : undefined;
    for (const [key, child] of Object.entries(record)) {
      const childSchema = Object.hasOwn(properties, key) ? properties[key] : additional;
      const walked = walk(childSchema, out[key] ?? child, at(key), false);
      if (walked !== (out[key] ?? child)) set(key, walked);
    }
    return out;
  };
  const result = walk(schema, object, "", true);
  if (failure !== undefined) return { error: failure };
  return { object: result, unknown };
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
