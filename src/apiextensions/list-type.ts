import { type FieldError, fieldError, omittedErrors } from "../admission/field-errors.js";
import { own } from "../admission/own-property.js";
import { writeJson } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { markedWithin } from "./schema-marks.js";

const hasListTypeWithin = markedWithin(new WeakMap(), (schema) => {
  const listType = schema["x-kubernetes-list-type"];
  return listType === "set" || listType === "map";
});

/**
 * The uniqueness the API server enforces on `x-kubernetes-list-type: set` (whole items) and `map`
 * (the items' `x-kubernetes-list-map-keys`) lists of a custom resource, with its messages
 * (apiextensions-apiserver `pkg/apiserver/schema/listtype`): each value seen again is reported once,
 * at its second index, `spec.channels[1]: Duplicate value: {"channel":"fast"}`.
 * Linear in the object: each item is keyed once (compound items by their JSON, keys sorted as Go's
 * encoding/json sorts them).
 */
export function listSetAndMapErrors(schema: JsonSchema, object: unknown): FieldError[] {
  const errors = new Bounded();
  if (isObject(object)) walkObject(schema, object, FieldPath.root(""), errors);
  return errors.list();
}

/**
 * At most the answer's bound of errors; the rest only counted (a list of 300,000 equal items is
 * 299,999 duplicates, each shown in Go's syntax once built).
 */
class Bounded {
  private readonly errors: FieldError[] = [];
  private omitted = 0;

  push(make: () => FieldError): void {
    if (this.errors.length < limits.causes) this.errors.push(make());
    else this.omitted++;
  }

  list(): FieldError[] {
    if (this.omitted === 0) return this.errors;
    // The last error shown makes room for the count of the rest, as the answer's bound does.
    return [...this.errors.slice(0, -1), omittedErrors(this.omitted + 1)];
  }
}

function walkObject(
  schema: JsonSchema,
  object: Record<string, unknown>,
  path: FieldPath,
  errors: Bounded,
): void {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JsonSchema)
    : undefined;
  // A path is made only for a value whose schema holds a list type somewhere below.
  const walkAdditional = additional !== undefined && hasListTypeWithin(additional);
  for (const [key, value] of Object.entries(object)) {
    if (walkAdditional) walk(additional, value, path.key(key), errors);
    const property = properties ? own(properties, key) : undefined;
    if (property && hasListTypeWithin(property)) walk(property, value, path.child(key), errors);
  }
}

function walk(schema: JsonSchema, value: unknown, path: FieldPath, errors: Bounded): void {
  if (!hasListTypeWithin(schema)) return;
  if (Array.isArray(value)) walkList(schema, value, path, errors);
  else if (isObject(value)) walkObject(schema, value, path, errors);
}

function walkList(schema: JsonSchema, list: unknown[], path: FieldPath, errors: Bounded): void {
  const listType = schema["x-kubernetes-list-type"];
  if (listType === "set") {
    for (const i of repeatedIndexes(list)) errors.push(() => duplicate(path.index(i), list[i]));
  } else if (listType === "map") {
    listMapErrors(schema, list, path, errors);
  }
  const items = schema.items;
  if (!isObject(items)) return;
  list.forEach((item, i) => {
    walk(items as JsonSchema, item, path.index(i), errors);
  });
}

function listMapErrors(schema: JsonSchema, list: unknown[], path: FieldPath, errors: Bounded): void {
  const notObject = list.findIndex((item) => item !== null && !isObject(item));
  if (notObject >= 0) {
    errors.push(() =>
      fieldError.invalid(
        path.index(notObject),
        list[notObject],
        "must be an object for an array of list-type map",
      ),
    );
    return;
  }
  const keyFields = (schema["x-kubernetes-list-map-keys"] ?? []) as string[];
  // An item without a key field counts as one "unspecified" key; with several key fields, the key is
  // the map of those present (a missing one is simply absent from it).
  const unspecified = Symbol("unspecified");
  const keys = list.map((item): unknown => {
    const fields = (item ?? {}) as Record<string, unknown>;
    if (keyFields.length === 1) {
      const field = keyFields[0] as string;
      return Object.hasOwn(fields, field) ? fields[field] : unspecified;
    }
    return Object.fromEntries(keyFields.filter((f) => Object.hasOwn(fields, f)).map((f) => [f, fields[f]]));
  });
  for (const i of repeatedIndexes(keys)) {
    errors.push(() => {
      const key = keys[i];
      const shown =
        keyFields.length === 1 ? (key === unspecified ? {} : { [keyFields[0] as string]: key }) : key;
      return duplicate(path.index(i), shown);
    });
  }
}

/** The index of each value's second appearance, in order (later repeats are not reported again). */
function repeatedIndexes(values: unknown[]): number[] {
  if (values.length <= 1) return [];
  const seen = new Map<unknown, number>();
  const repeated: number[] = [];
  values.forEach((value, i) => {
    const identity = identityOf(value);
    const times = seen.get(identity) ?? 0;
    seen.set(identity, times + 1);
    if (times === 1) repeated.push(i);
  });
  return repeated;
}

/**
 * Go compares scalars by type and value and compound values by their JSON: `"1"` and `1` differ, two
 * objects with the same members in another order do not. Symbols (the unspecified key) are themselves.
 */
function identityOf(value: unknown): unknown {
  if (typeof value === "symbol") return value;
  if (value === null || value === undefined) return "null";
  if (typeof value === "object") return `json:${canonicalJson(value)}`;
  return `${typeof value}:${String(value)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return writeJson(value ?? null);
}

/** apimachinery's Duplicate: the value as Go prints a bad value (`%q`, `%v`, JSON for a map). */
function duplicate(path: FieldPath, value: unknown): FieldError {
  return { ...fieldError.duplicate(path, value), verbatim: true };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
