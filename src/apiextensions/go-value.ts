/** A decoded JSON value's JSON type, as Go decodes it: an integer literal that fits is an int64. */
export function jsonKind(
  value: unknown,
): "integer" | "number" | "string" | "boolean" | "array" | "object" | "null" {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return "integer";
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? "integer" : "number";
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
