import { type CelInput, celError } from "@bufbuild/cel";
import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { own } from "../admission/own-property.js";
import { isGoDate, isGoDateTime } from "../schema/date-time.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { ConversionError } from "./conversion-errors.js";

/**
 * A JSON value as the API server hands it to CEL: guided by the schema, so that `integer` fields are CEL
 * ints (bigint) and `number` fields doubles, as in apiextensions, where `replicas == 3` compares ints;
 * `format: date-time` and `format: date` strings timestamps (apiserver's cel/common values: a rule
 * compares `self.when < timestamp('...')`; `formats` false for admission policies, whose `object` is
 * the unstructured object as it is); free-form values as decoded JSON, integral numbers as ints.
 */
export function toCel(
  value: unknown,
  schema: JsonSchema | undefined,
  converted = new Map<object, CelInput>(),
  formats = true,
): CelInput {
  if (value === null || value === undefined) return null;
  if (value instanceof ConversionError) return celError(value.message) as unknown as CelInput;
  // Rules on nested nodes see values already converted for rules above them: convert each once.
  const known = typeof value === "object" ? converted.get(value) : undefined;
  if (known !== undefined) return known;
  const result = convert(value, schema, converted, formats);
  if (typeof value === "object") converted.set(value, result);
  return result;
}

function convert(
  value: unknown,
  schema: JsonSchema | undefined,
  converted: Map<object, CelInput>,
  formats: boolean,
): CelInput {
  // An int64 beyond 2^53-1 is read as a bigint (src/base/exact-json.ts): a double in a `number` field.
  if (typeof value === "bigint") return schema?.type === "number" ? Number(value) : value;
  if (typeof value === "number") {
    if (schema?.type === "integer" && Number.isInteger(value)) return BigInt(value);
    // A free-form value (no type): the API server decodes an integral JSON number as int64 when it
    // fits; one beyond 2^53-1 read as a number is a float64.
    if (schema?.type === undefined && Number.isSafeInteger(value)) return BigInt(value);
    return value;
  }
  if (typeof value === "string" && schema?.type === "string")
    return timestampOf(value, schema.format) ?? value;
  if (Array.isArray(value)) {
    const items = schema?.items as JsonSchema | undefined;
    return value.map((item) => toCel(item, items, converted, formats));
  }
  if (typeof value === "object" && value !== null) {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const additional = schema?.additionalProperties;
    const rest = typeof additional === "object" ? (additional as JsonSchema) : undefined;
    const map = new Map<string, CelInput>();
    for (const key of Object.keys(value))
      map.set(
        key,
        toCel((value as Record<string, unknown>)[key], own(properties, key) ?? rest, converted, formats),
      );
    return map as CelInput;
  }
  return value as CelInput;
}

/**
 * A `date-time` (RFC 3339, as strfmt.ParseDateTime reads what the format check lets through) or `date`
 * (midnight UTC) string as a CEL timestamp; undefined for any other format or a value that does not
 * parse (the format check refuses it; the rule then sees the string).
 */
function timestampOf(value: string, format: unknown): CelInput | undefined {
  if (format === "date" && isGoDate(value)) return timestamp(Date.parse(`${value}T00:00:00Z`) / 1000, 0);
  if (format !== "date-time" || !isGoDateTime(value)) return undefined;
  const parts = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(value);
  if (!parts) return undefined;
  const [, date, time, fraction = "", zone = "Z"] = parts;
  const offset = /^[Zz]$/.test(zone) ? "Z" : zone;
  const millis = Date.parse(`${date}T${time}${offset}`);
  if (Number.isNaN(millis) || fraction.length > 9) return undefined;
  return timestamp(millis / 1000, Number(fraction.padEnd(9, "0")));
}

function timestamp(seconds: number, nanos: number): CelInput {
  return create(TimestampSchema, { seconds: BigInt(seconds), nanos }) as unknown as CelInput;
}
