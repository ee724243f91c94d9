/**
 * A decoded JSON value's JSON type, as Go decodes it: an integer literal that fits is an int64
 * (src/base/exact-json.ts).
 */
export function jsonKind(
  value: unknown,
): "integer" | "number" | "string" | "boolean" | "array" | "object" | "null" {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return "integer";
  // A number beyond 2^53-1 is a float64: the readers hold an int64 beyond it as a bigint.
  if (typeof value === "number") return Number.isSafeInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  return Array.isArray(value) ? "array" : "object";
}

/** kube-openapi's name for a decoded value's type, and its format for numbers (int64, float64). */
export function goJsonKind(value: unknown): { type: string; format: string } {
  const kind = jsonKind(value);
  if (kind === "integer") return { type: kind, format: "int64" };
  if (kind === "number") return { type: kind, format: "float64" };
  return { type: kind, format: "" };
}
