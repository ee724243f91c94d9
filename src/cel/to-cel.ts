import type { CelInput } from "@bufbuild/cel";
import { own } from "../admission/own-property.js";
import type { JsonSchema } from "../codegen/schema-source.js";

/**
 * A JSON value as the API server hands it to CEL: guided by the schema, so that `integer` fields are CEL
 * ints (bigint) and `number` fields doubles, as in apiextensions, where `replicas == 3` compares ints;
 * free-form values as decoded JSON, integral numbers as ints.
 */
export function toCel(
  value: unknown,
  schema: JsonSchema | undefined,
  converted = new Map<object, CelInput>(),
): CelInput {
  if (value === null || value === undefined) return null;
  // Rules on nested nodes see values already converted for rules above them: convert each once.
  const known = typeof value === "object" ? converted.get(value) : undefined;
  if (known !== undefined) return known;
  const result = convert(value, schema, converted);
  if (typeof value === "object") converted.set(value, result);
  return result;
}

function convert(value: unknown, schema: JsonSchema | undefined, converted: Map<object, CelInput>): CelInput {
  if (typeof value === "number") {
    if (schema?.type === "integer" && Number.isInteger(value)) return BigInt(value);
    // A free-form value (no type): the API server decodes an integral JSON number as int64 when it fits.
    if (schema?.type === undefined && Number.isInteger(value) && Math.abs(value) < 2 ** 63)
      return BigInt(value);
    return value;
  }
  if (Array.isArray(value)) {
    const items = schema?.items as JsonSchema | undefined;
    return value.map((item) => toCel(item, items, converted));
  }
  if (typeof value === "object" && value !== null) {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const additional = schema?.additionalProperties;
    const rest = typeof additional === "object" ? (additional as JsonSchema) : undefined;
    return new Map(
      Object.entries(value).map(
        ([key, child]) => [key, toCel(child, own(properties, key) ?? rest, converted)] as const,
      ),
    ) as CelInput;
  }
  return value as CelInput;
}
