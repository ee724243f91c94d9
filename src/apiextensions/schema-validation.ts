import { type FieldError, omittedErrors } from "../admission/field-errors.js";
import { writeJson } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";
import { goRequestUriError } from "../go/net-url/parse.js";
import { goQuote, runeCount } from "../go/strconv/go-strings.js";
import { compileRe2 } from "../regex/re2.js";
import { Correlated, ratchets } from "../schema/correlation.js";
import { isGoDateTime } from "../schema/date-time.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { goJsonKind, jsonKind } from "./go-value.js";

/**
 * The API server's check of a custom resource against its CRD's openAPIV3Schema (kube-openapi's
 * validate package, as apiextensions-apiserver calls it and turns its results into field errors), with
 * its wording: `spec.x in body should be at least 1 chars long`, `spec.hibernated in body must be of
 * type boolean: "string"`, `Too long: may not be more than 53 bytes`. On UPDATE it ratchets as the
 * API server does (CRDValidationRatcheting, on since 1.30): an error is dropped when the value it was
 * found at, or its nearest container that correlates with the old object, is unchanged.
 *
 * Keywords a structural schema allows at a node (type, format, enum, bounds, pattern, required, items,
 * properties, additionalProperties, nullable, x-kubernetes-int-or-string); not `allOf`/`anyOf`/`oneOf`/
 * `not`, which none of this project's schemas uses (a schema with them is refused at build: `validate`
 * must not pass silently what it does not check).
 *
 * At most `limits.causes` errors are built; the rest are counted in a last `... and N more errors`.
 */
export function schemaValidator(
  openAPIV3Schema: JsonSchema,
): (object: unknown, oldObject?: unknown) => FieldError[] {
  refuseUnsupported(openAPIV3Schema, "");
  const root = planOf(openAPIV3Schema, new Map());
  return (object, oldObject) => {
    const errors = new Errors(
      oldObject === undefined ? undefined : new Correlated(object, oldObject, openAPIV3Schema),
    );
    validateNode(root, object, [], errors);
    return errors.list();
  };
}

/**
 * A schema node's keywords, read once when the validator is built. The schema's nodes are objects of
 * many shapes, so reading a keyword from one at every value checked was most of the check's cost
 * (property lookups V8 cannot cache); a plan has one shape. Every field is what the check read from
 * the schema before, computed the same way.
 */
interface Plan {
  expected: string[];
  nullable: boolean;
  enum: unknown[] | undefined;
  /** The format typeCheck compares with: supportedFormat where `format` is a string, else "". */
  typeFormat: string;
  /** supportedFormat: the format the format check names, and its check (none for most). */
  format: string;
  formatCheck: ((value: string) => boolean) | undefined;
  schemaFormat: unknown;
  maxLength: number | undefined;
  minLength: number | undefined;
  pattern: string | undefined;
  minimum: number | undefined;
  exclusiveMinimum: boolean;
  maximum: number | undefined;
  exclusiveMaximum: boolean;
  items: Plan | undefined;
  minItems: number | undefined;
  maxItems: number | undefined;
  /** `properties`: a key whose schema is no object (null) is checked by nothing, not by `additional`. */
  properties: Map<string, Plan | null>;
  additional: Plan | undefined;
  minProperties: number | undefined;
  maxProperties: number | undefined;
  required: string[];
}

const numberOr = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** The plan of a schema node and of every node below it, each built once (`built`: by schema object). */
function planOf(given: unknown, built: Map<unknown, Plan>): Plan {
  const known = built.get(given);
  if (known) return known;
  // A schema that is no object (a `true` under properties) has no keyword: its plan checks nothing.
  const schema = (isSchema(given) ? given : {}) as JsonSchema;
  const format = supportedFormat(schema);
  const plan: Plan = {
    expected: types(schema),
    nullable: schema.nullable === true,
    enum: Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined,
    typeFormat: typeof schema.format === "string" ? format : "",
    format,
    formatCheck: stringFormats.get(format.replaceAll("-", "")),
    schemaFormat: schema.format,
    maxLength: numberOr(schema.maxLength),
    minLength: numberOr(schema.minLength),
    pattern: typeof schema.pattern === "string" ? schema.pattern : undefined,
    minimum: numberOr(schema.minimum),
    exclusiveMinimum: schema.exclusiveMinimum === true,
    maximum: numberOr(schema.maximum),
    exclusiveMaximum: schema.exclusiveMaximum === true,
    items: undefined,
    minItems: numberOr(schema.minItems),
    maxItems: numberOr(schema.maxItems),
    properties: new Map(),
    additional: undefined,
    minProperties: numberOr(schema.minProperties),
    maxProperties: numberOr(schema.maxProperties),
    required: (schema.required ?? []) as string[],
  };
  built.set(given, plan);
  if (isSchema(schema.items)) plan.items = planOf(schema.items, built);
  if (isSchema(schema.additionalProperties)) plan.additional = planOf(schema.additionalProperties, built);
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(properties)) {
    const child = properties[key];
    plan.properties.set(key, child ? planOf(child, built) : null);
  }
  return plan;
}

/** Errors found so far, the ratcheted ones dropped as they are found, bounded as an answer is. */
class Errors {
  private readonly found: FieldError[] = [];
  private omitted = 0;

  constructor(private readonly correlated: Correlated | undefined) {}

  /** An error found by the validator of the value at `steps`. */
  add(steps: readonly (string | number)[], make: () => FieldError): void {
    if (this.correlated && ratchets(this.correlated, steps)) return;
    if (this.found.length < limits.causes) this.found.push({ ...make(), verbatim: true });
    else this.omitted++;
  }

  list(): FieldError[] {
    if (this.omitted === 0) return this.found;
    return [...this.found.slice(0, -1), omittedErrors(this.omitted + 1)];
  }
}

type Steps = readonly (string | number)[];

const unsupportedKeywords = ["allOf", "anyOf", "oneOf", "not", "uniqueItems", "patternProperties"];

function refuseUnsupported(schema: JsonSchema, at: string): void {
  for (const keyword of unsupportedKeywords) {
    if (keyword in schema) throw new Error(`${at || "<root>"}: ${keyword} is not checked offline`);
  }
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    refuseUnsupported(child, `${at}.${name}`);
  }
  for (const child of [schema.items, schema.additionalProperties]) {
    if (child !== null && typeof child === "object") refuseUnsupported(child as JsonSchema, `${at}[]`);
  }
}

/** The field a kube-openapi path names: `config[0].integer.default`, as the cause's field shows it. */
function fieldOf(steps: Steps): FieldPath {
  let path = FieldPath.empty;
  for (const step of steps) path = typeof step === "number" ? path.index(step) : path.child(step);
  return path;
}

/** kube-openapi's path text (`spec.helm.chart`, `config[0].alias`): the messages repeat it. */
function pathText(steps: Steps): string {
  return fieldOf(steps).toString();
}

function types(schema: JsonSchema): string[] {
  if (schema["x-kubernetes-int-or-string"] === true) return ["integer", "string"];
  return typeof schema.type === "string" ? [schema.type] : [];
}

/**
 * `steps` is the path to `value`, one array pushed and popped as the walk goes down: whatever reads it
 * (an error's field and text, the ratchet's lookup) does so before the walk moves on.
 */
function validateNode(plan: Plan, value: unknown, steps: (string | number)[], errors: Errors): void {
  const expected = plan.expected;
  const field = () => fieldOf(steps);
  if (value === null || value === undefined) {
    if (expected.length > 0 && !plan.nullable) {
      const detail = `${pathText(steps)} in body must be of type ${expected.join(",")}: "null"`;
      errors.add(steps, () => ({ type: "typeInvalid", field: field(), value: "null", detail }));
    }
    if (plan.enum) enumCheck(plan.enum, null, steps, errors);
    return;
  }
  typeCheck(plan, value, expected, steps, errors);
  if (typeof value === "string") {
    stringCheck(plan, value, steps, errors);
    formatCheck(plan, value, steps, errors);
  }
  if (typeof value === "number" || typeof value === "bigint")
    numberCheck(plan, value, expected, steps, errors);
  if (Array.isArray(value)) {
    const items = plan.items;
    if (items) {
      for (let i = 0; i < value.length; i++) {
        steps.push(i);
        validateNode(items, value[i], steps, errors);
        steps.pop();
      }
    }
    const size = value.length;
    if (plan.minItems !== undefined && size < plan.minItems) {
      const message = `${pathText(steps)} in body should have at least ${plan.minItems} items`;
      errors.add(steps, () => ({ type: "invalid", field: field(), value: size, detail: message }));
    }
    if (plan.maxItems !== undefined && size > plan.maxItems) {
      const max = plan.maxItems;
      const detail = `must have at most ${max} ${max === 1 ? "item" : "items"}`;
      errors.add(steps, () => ({ type: "tooMany", field: field(), value: size, detail }));
    }
  }
  if (plan.enum) enumCheck(plan.enum, value, steps, errors);
  if (isRecord(value)) objectCheck(plan, value, steps, errors);
}

/** kube-openapi's type validator: the JSON type Go decoded against the schema's type and format. */
function typeCheck(plan: Plan, value: unknown, expected: string[], steps: Steps, errors: Errors): void {
  const { type: actual, format } = goJsonKind(value);
  const wanted = plan.typeFormat;
  const isFloatInt = actual === "number" && isJsonInteger(Number(value)) && expected.includes("integer");
  const isIntFloat = actual === "integer" && expected.includes("number");
  const stringOrSlice = actual === "string" || actual === "array";
  // kube-openapi's errors.InvalidType: `<path> in body must be of type <wanted>: "<actual>"`, the
  // actual type's name as the value.
  const fail = (wantedName: string, actualName: string) => {
    const detail = `${pathText(steps)} in body must be of type ${wantedName}: ${goQuote(actualName)}`;
    errors.add(steps, () => ({ type: "typeInvalid", field: fieldOf(steps), value: actualName, detail }));
  };
  const formatCompatible =
    expected.includes(actual) ||
    format === wanted ||
    isFloatInt ||
    isIntFloat ||
    (wanted === "int64" && format === "int32") ||
    (wanted === "float64" && format === "float32");
  if (!stringOrSlice && wanted !== "" && !formatCompatible) {
    fail(wanted, format);
    return;
  }
  // A string-typed field with a format takes a string or a list unchecked (the format check follows).
  if (!(expected.includes("number") || expected.includes("integer")) && wanted !== "" && stringOrSlice)
    return;
  if (expected.length > 0 && !(expected.includes(actual) || isFloatInt || isIntFloat)) {
    fail(expected.join(","), actual);
  }
}

/** A float64 Go counts as a JSON integer (go-openapi's swag.IsFloat64AJSONInteger). */
function isJsonInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53 - 1) return false;
  const rounded = Math.round(f);
  if (f === rounded) return true;
  if (rounded === 0) return false;
  return Math.abs(f - rounded) < 1e-9 * Math.abs(rounded);
}

/** The format kube-openapi checks: what apiextensions keeps of the schema's (others are stripped). */
function supportedFormat(schema: JsonSchema): string {
  const format = String(schema.format ?? "");
  const type = typeof schema.type === "string" ? schema.type : "";
  if (type === "integer") return format === "int32" || format === "int64" ? format : "";
  if (type === "number") return format === "float" || format === "double" ? format : "";
  if (type === "" || type === "string") return stringFormats.has(format.replaceAll("-", "")) ? format : "";
  return "";
}

/** The string formats apiextensions supports that this check implements (others pass unchecked). */
const stringFormats = new Map<string, (value: string) => boolean>([
  ["uri", (value) => goRequestUriError(value) === undefined],
  ["datetime", isGoDateTime],
  ["date", (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && isGoDateTime(`${value}T00:00:00Z`)],
  ["password", () => true],
]);

function stringCheck(plan: Plan, value: string, steps: Steps, errors: Errors): void {
  // The path's text and the length in code points are made only where a keyword needs them: this runs
  // for every string of every object.
  const { maxLength, minLength, pattern } = plan;
  const bounded = maxLength !== undefined || minLength !== undefined;
  if (!bounded && pattern === undefined) return;
  const length = bounded ? runeCount(value) : 0;
  const path = () => pathText(steps);
  // Only the first failing bound is reported, in this order.
  if (maxLength !== undefined && length > maxLength) {
    const max = maxLength;
    const detail = `may not be more than ${max} ${max === 1 ? "byte" : "bytes"}`;
    errors.add(steps, () => ({ type: "tooLong", field: fieldOf(steps), detail }));
    return;
  }
  if (minLength !== undefined && length < minLength) {
    const detail = `${path()} in body should be at least ${minLength} chars long`;
    errors.add(steps, () => ({ type: "invalid", field: fieldOf(steps), value, detail }));
    return;
  }
  if (pattern !== undefined) {
    const regex = compileRe2(pattern);
    if ("error" in regex || !regex.test(value)) {
      const detail = `${path()} in body should match '${pattern}'`;
      errors.add(steps, () => ({ type: "invalid", field: fieldOf(steps), value, detail }));
    }
  }
}

function formatCheck(plan: Plan, value: string, steps: Steps, errors: Errors): void {
  const check = plan.formatCheck;
  if (!check || check(value)) return;
  const detail = `${pathText(steps)} in body must be of type ${plan.format}: ${goQuote(value)}`;
  errors.add(steps, () => ({ type: "typeInvalid", field: fieldOf(steps), value, detail }));
}

function numberCheck(
  plan: Plan,
  value: number | bigint,
  expected: string[],
  steps: Steps,
  errors: Errors,
): void {
  const path = () => pathText(steps);
  const single = expected.length === 1 ? expected[0] : undefined;
  // "Checked value must be of type integer": the value's decimal text does not parse as an int64.
  // A safe integer's decimal text is always an int64's: only other numbers need the text.
  if (single === "integer" && !(typeof value === "number" && Number.isSafeInteger(value))) {
    const text = typeof value === "bigint" ? String(value) : goDecimal(value);
    if (!/^[-+]?\d+$/.test(text) || BigInt(text) > 2n ** 63n - 1n || BigInt(text) < -(2n ** 63n)) {
      const format =
        plan.schemaFormat === "int32" || plan.schemaFormat === "int64"
          ? ` with format ${plan.schemaFormat}`
          : " (default format)";
      const detail = `Checked value must be of type integer${format} in ${path()}`;
      // Not a kube-openapi validation error: apiextensions reports it at the nil path, `<nil>`.
      errors.add(steps, () => ({ type: "invalid", field: FieldPath.root("<nil>"), value: "", detail }));
    }
  }
  // Compared exactly: JavaScript compares a bigint with a number by their values.
  const { minimum, maximum } = plan;
  if (minimum !== undefined) {
    const exclusive = plan.exclusiveMinimum;
    if (exclusive ? value <= minimum : value < minimum) {
      const detail = `${path()} in body should be greater than ${exclusive ? "" : "or equal to "}${minimum}`;
      errors.add(steps, () => ({ type: "invalid", field: fieldOf(steps), value, detail }));
    }
  }
  if (maximum !== undefined) {
    const exclusive = plan.exclusiveMaximum;
    if (exclusive ? value >= maximum : value > maximum) {
      const detail = `${path()} in body should be less than ${exclusive ? "" : "or equal to "}${maximum}`;
      errors.add(steps, () => ({ type: "invalid", field: fieldOf(steps), value, detail }));
    }
  }
}

/**
 * strconv.FormatFloat(f, 'f', -1, 64): the shortest digits that read back as the float, never an
 * exponent (-2^63 is -9223372036854776000, which no int64 holds: kube-apiserver 1.37 refuses it).
 */
function goDecimal(value: number): string {
  if (Number.isInteger(value)) {
    const [mantissa = "", exponent = "0"] = value.toExponential().split("e");
    const digits = mantissa.replace(/^-/, "").replace(".", "");
    return `${value < 0 ? "-" : ""}${digits.padEnd(Number(exponent) + 1, "0")}`;
  }
  return value.toFixed(20).replace(/0+$/, "");
}

function enumCheck(allowed: unknown[], value: unknown, steps: Steps, errors: Errors): void {
  if (value !== null && allowed.some((option) => enumMatches(option, value))) return;
  // apimachinery's NotSupported: each allowed value quoted, a string as it is, anything else as JSON.
  const shown = allowed.map((option) => (typeof option === "string" ? option : JSON.stringify(option)));
  const detail = `supported values: ${shown.map((option) => goQuote(option)).join(", ")}`;
  errors.add(steps, () => ({ type: "notSupported", field: fieldOf(steps), value, detail }));
}

function enumMatches(option: unknown, value: unknown): boolean {
  if (typeof option === "number" || typeof option === "bigint")
    return Number(option) === Number(value) && jsonKind(value) !== "string";
  // Two strings' JSON texts are equal exactly when the strings are: the common case, without writing them.
  if (typeof option === "string" && typeof value === "string") return option === value;
  return writeJson(option) === writeJson(value);
}

function objectCheck(
  plan: Plan,
  value: Record<string, unknown>,
  steps: (string | number)[],
  errors: Errors,
): void {
  const keys = Object.keys(value);
  const count = keys.length;
  if (plan.minProperties !== undefined && count < plan.minProperties) {
    const detail = `${pathText(steps)} in body should have at least ${plan.minProperties} properties`;
    errors.add(steps, () => ({ type: "invalid", field: fieldOf(steps), value: count, detail }));
  }
  if (plan.maxProperties !== undefined && count > plan.maxProperties) {
    const max = plan.maxProperties;
    const detail = `must have at most ${max} ${max === 1 ? "item" : "items"}`;
    errors.add(steps, () => ({ type: "tooMany", field: fieldOf(steps), value: count, detail }));
  }
  const { properties, additional } = plan;
  for (const key of keys) {
    const property = properties.has(key) ? properties.get(key) : additional;
    if (!property) continue;
    steps.push(key);
    validateNode(property, value[key], steps, errors);
    steps.pop();
  }
  for (const name of plan.required) {
    if (!Object.hasOwn(value, name)) {
      errors.add(steps, () => ({ type: "required", field: fieldOf([...steps, name]) }));
    }
  }
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
