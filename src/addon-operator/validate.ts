import { compileRe2 } from "../regex/re2.js";
import { matchesFormat } from "./formats.js";
import { asSchema, hasKey, isMap, type Schema, schemaMap } from "./schema.js";

export type PathSegment = string | number;

/** One failed keyword, in go-openapi's wording (what addon-operator logs), e.g. `someModule.x in body is required`. */
export interface Violation {
  kind: "required" | "forbidden" | "invalid";
  /** Where, below the section's root. */
  path: PathSegment[];
  value?: unknown;
  message: string;
}

/**
 * Validates values the way addon-operator's go-openapi validator does, at OpenAPI v2 / draft-4 level:
 * boolean exclusiveMinimum/Maximum, `nullable`, a required property that has a default is never
 * missing, `$schema` and `id` are always allowed, unanchored RE2 patterns. `const`, `contains`,
 * `propertyNames` and `if`/`then`/`else` do not exist at this level and are ignored. `rootName` starts
 * every message (the values key: `someModule`, `global`).
 */
export function validateValues(value: unknown, schema: Schema, rootName: string): Violation[] {
  return check(value, schema, { rootName, path: [] });
}

interface At {
  rootName: string;
  path: PathSegment[];
}

/** The path as go-openapi's messages name it: list positions are left out (`pools.name`, not `pools.0.name`). */
const name = (at: At) => [at.rootName, ...at.path.filter((segment) => typeof segment !== "number")].join(".");
const below = (at: At, segment: PathSegment): At => ({ ...at, path: [...at.path, segment] });
const invalid = (at: At, value: unknown, rule: string): Violation => ({
  kind: "invalid",
  path: at.path,
  value,
  message: `${name(at)} in body ${rule}`,
});

function check(value: unknown, schema: Schema, at: At): Violation[] {
  const typeProblem = checkType(value, schema, at);
  // go-openapi checks a null only by its type and enum validators (and no enum member, not even a
  // null one, ever matches a null: Go's reflection has no type for it).
  if (value === null) return [...(typeProblem ? [typeProblem] : []), ...checkEnum(value, schema, at)];
  if (typeProblem) return [typeProblem];
  return [
    ...checkEnum(value, schema, at),
    ...(typeof value === "string" ? checkString(value, schema, at) : []),
    ...(typeof value === "number" ? checkNumber(value, schema, at) : []),
    ...(Array.isArray(value) ? checkArray(value, schema, at) : []),
    ...(isMap(value) ? checkObject(value, schema, at) : []),
    ...checkCombinators(value, schema, at),
  ];
}

/** The JSON type go-openapi reports for a value decoded from YAML: every number is a float64, "number". */
function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value === "number" ? "number" : typeof value;
}

/**
 * swag.IsFloat64AJSONInteger: a whole number within ±(2^53 - 1), or one within a relative 1e-9 of it (go-openapi's
 * test for `integer` and for `multipleOf`, where 0.07 / 0.01 = 7.000000000000001 is a multiple).
 */
export function isJsonInteger(value: number): boolean {
  if (!Number.isFinite(value) || Math.abs(value) > 2 ** 53 - 1) return false;
  const whole = Math.trunc(value);
  if (value === whole) return true;
  const diff = Math.abs(value - whole);
  if (whole === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / Math.min(Math.abs(value) + Math.abs(whole), Number.MAX_VALUE) < 1e-9;
}

function hasType(value: unknown, type: string): boolean {
  if (type === "integer") return typeof value === "number" && isJsonInteger(value);
  if (type === "null") return value === null;
  return typeOf(value) === type;
}

function checkType(value: unknown, schema: Schema, at: At): Violation | undefined {
  const types =
    typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (value === null) {
    if (schema.nullable === true || types.length === 0 || types.includes("null")) return undefined;
    return invalid(at, value, `must be of type ${types.join(",")}: "null"`);
  }
  // go-openapi's typeValidator (validate type.go): with a format and no numeric type, a string or a list
  // passes without its type checked (`cloudflareEmail: [a]` against type string, format email).
  const numeric = types.includes("number") || types.includes("integer");
  if (
    typeof schema.format === "string" &&
    schema.format !== "" &&
    !numeric &&
    (typeof value === "string" || Array.isArray(value))
  )
    return typeof value === "string" && !matchesFormat(schema.format, value)
      ? invalid(at, value, `must be of type ${schema.format}: ${JSON.stringify(value)}`)
      : undefined;
  if (types.length > 0 && !types.some((type) => hasType(value, String(type)))) {
    return invalid(at, value, `must be of type ${types.join(",")}: ${JSON.stringify(typeOf(value))}`);
  }
  if (
    typeof value === "string" &&
    typeof schema.format === "string" &&
    !matchesFormat(schema.format, value)
  ) {
    return invalid(at, value, `must be of type ${schema.format}: ${JSON.stringify(value)}`);
  }
  return undefined;
}

/** Go's %v for decoded YAML values: `[a b]` for a list of strings. */
function goFormat(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goFormat).join(" ")}]`;
  if (isMap(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${goFormat(value[key])}`);
    return `map[${entries.join(" ")}]`;
  }
  return String(value);
}

/**
 * Whether two items of a list are deeply equal, found with a set of each item's canonical JSON (map
 * keys sorted): linear in the list's size, where comparing every pair took 3.1 s for 30,000 items.
 */
function hasDuplicates(items: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonicalJson(item);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isMap(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => hasKey(b, key) && deepEqual(a[key], b[key]))
    );
  }
  return false;
}

function checkEnum(value: unknown, schema: Schema, at: At): Violation[] {
  if (!Array.isArray(schema.enum) || schema.enum.length === 0) return [];
  if (value !== null && schema.enum.some((allowed) => allowed !== null && deepEqual(allowed, value)))
    return [];
  return [invalid(at, value, `should be one of ${goFormat(schema.enum)}`)];
}

const numberKeyword = (schema: Schema, keyword: string) =>
  typeof schema[keyword] === "number" ? (schema[keyword] as number) : undefined;

function checkString(value: string, schema: Schema, at: At): Violation[] {
  const violations: Violation[] = [];
  const length = [...value].length;
  const maxLength = numberKeyword(schema, "maxLength");
  const minLength = numberKeyword(schema, "minLength");
  if (maxLength !== undefined && length > maxLength) {
    violations.push(invalid(at, value, `should be at most ${maxLength} chars long`));
  }
  if (minLength !== undefined && length < minLength) {
    violations.push(invalid(at, value, `should be at least ${minLength} chars long`));
  }
  if (typeof schema.pattern === "string") {
    const regex = compileRe2(schema.pattern);
    if ("error" in regex) {
      violations.push(
        invalid(at, value, `has a pattern RE2 cannot compile: ${schema.pattern}: ${regex.error}`),
      );
    } else if (!regex.test(value)) {
      violations.push(invalid(at, value, `should match '${schema.pattern}'`));
    }
  }
  return violations;
}

function checkNumber(value: number, schema: Schema, at: At): Violation[] {
  const violations: Violation[] = [];
  const multipleOf = numberKeyword(schema, "multipleOf");
  // go-openapi's validate.MultipleOf: 1/factor*data below 1, data/factor otherwise, then an integer test.
  const multiple =
    multipleOf === undefined ? 0 : multipleOf < 1 ? (1 / multipleOf) * value : value / multipleOf;
  if (multipleOf !== undefined && multipleOf > 0 && !isJsonInteger(multiple)) {
    violations.push(invalid(at, value, `should be a multiple of ${multipleOf}`));
  }
  const maximum = numberKeyword(schema, "maximum");
  if (maximum !== undefined) {
    if (schema.exclusiveMaximum === true ? value >= maximum : value > maximum) {
      const rule = schema.exclusiveMaximum === true ? "less than" : "less than or equal to";
      violations.push(invalid(at, value, `should be ${rule} ${maximum}`));
    }
  }
  const minimum = numberKeyword(schema, "minimum");
  if (minimum !== undefined) {
    if (schema.exclusiveMinimum === true ? value <= minimum : value < minimum) {
      const rule = schema.exclusiveMinimum === true ? "greater than" : "greater than or equal to";
      violations.push(invalid(at, value, `should be ${rule} ${minimum}`));
    }
  }
  return violations;
}

function checkArray(value: unknown[], schema: Schema, at: At): Violation[] {
  const violations: Violation[] = [];
  const maxItems = numberKeyword(schema, "maxItems");
  const minItems = numberKeyword(schema, "minItems");
  if (maxItems !== undefined && value.length > maxItems) {
    violations.push(invalid(at, value, `should have at most ${maxItems} items`));
  }
  if (minItems !== undefined && value.length < minItems) {
    violations.push(invalid(at, value, `should have at least ${minItems} items`));
  }
  if (schema.uniqueItems === true && hasDuplicates(value)) {
    violations.push(invalid(at, value, "shouldn't contain duplicates"));
  }
  value.forEach((item, i) => {
    const itemSchema = Array.isArray(schema.items) ? asSchema(schema.items[i]) : asSchema(schema.items);
    if (itemSchema) violations.push(...check(item, itemSchema, below(at, i)));
  });
  return violations;
}

/**
 * A schema's `properties` as a map and its `patternProperties`, derived once per schema object rather than
 * on every object checked: schemas are never changed after loading (see closedSchema in check-values.ts).
 */
interface ObjectKeywords {
  properties: Map<string, Schema>;
  patterns: readonly (readonly [string, Schema])[];
}
const objectKeywordsOf = new WeakMap<Schema, ObjectKeywords>();
function objectKeywords(schema: Schema): ObjectKeywords {
  let keywords = objectKeywordsOf.get(schema);
  if (keywords === undefined) {
    keywords = {
      properties: new Map(schemaMap(schema, "properties")),
      patterns: schemaMap(schema, "patternProperties"),
    };
    objectKeywordsOf.set(schema, keywords);
  }
  return keywords;
}

function checkObject(value: Record<string, unknown>, schema: Schema, at: At): Violation[] {
  const violations: Violation[] = [];
  const count = Object.keys(value).length;
  const maxProperties = numberKeyword(schema, "maxProperties");
  const minProperties = numberKeyword(schema, "minProperties");
  if (maxProperties !== undefined && count > maxProperties) {
    violations.push(invalid(at, value, `should have at most ${maxProperties} properties`));
  }
  if (minProperties !== undefined && count < minProperties) {
    violations.push(invalid(at, value, `should have at least ${minProperties} properties`));
  }
  const { properties, patterns } = objectKeywords(schema);
  for (const required of Array.isArray(schema.required) ? schema.required : []) {
    const key = String(required);
    // go-openapi: a required property with a default is never missing (the default would fill it).
    const property = properties.get(key);
    const hasDefault = property !== undefined && property.default !== undefined && property.default !== null;
    if (!hasKey(value, key) && !hasDefault) {
      violations.push({
        kind: "required",
        path: [...at.path, key],
        message: `${name(below(at, key))} in body is required`,
      });
    }
  }
  for (const [key, item] of Object.entries(value)) {
    const property = properties.get(key);
    if (property) violations.push(...check(item, property, below(at, key)));
    const matching = patterns.filter(([pattern]) => {
      const regex = compileRe2(pattern);
      return !("error" in regex) && regex.test(key);
    });
    for (const [, patternSchema] of matching) violations.push(...check(item, patternSchema, below(at, key)));
    if (property || matching.length > 0 || key === "$schema" || key === "id") continue;
    if (schema.additionalProperties === false) {
      violations.push({
        kind: "forbidden",
        path: [...at.path, key],
        message: `${name(below(at, key))} in body is a forbidden property`,
      });
    } else if (isMap(schema.additionalProperties)) {
      violations.push(...check(item, schema.additionalProperties, below(at, key)));
    }
  }
  return violations;
}

const subSchemas = (schema: Schema, keyword: string): Schema[] =>
  Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]).filter(isMap) : [];

function checkCombinators(value: unknown, schema: Schema, at: At): Violation[] {
  const violations: Violation[] = [];
  const allOf = subSchemas(schema, "allOf").flatMap((sub) => check(value, sub, at));
  if (allOf.length > 0)
    violations.push(...allOf, invalid(at, value, "must validate all the schemas (allOf)"));
  const anyOf = subSchemas(schema, "anyOf");
  if (anyOf.length > 0 && !anyOf.some((sub) => check(value, sub, at).length === 0)) {
    violations.push(invalid(at, value, "must validate at least one schema (anyOf)"));
  }
  const oneOf = subSchemas(schema, "oneOf");
  if (oneOf.length > 0 && oneOf.filter((sub) => check(value, sub, at).length === 0).length !== 1) {
    violations.push(invalid(at, value, "must validate one and only one schema (oneOf)"));
  }
  const not = asSchema(schema.not);
  if (not && check(value, not, at).length === 0) {
    violations.push(invalid(at, value, "must not validate the schema (not)"));
  }
  return violations;
}
