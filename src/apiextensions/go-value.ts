import { limits } from "../admission/limits.js";

/**
 * A value as Go's `%#v` prints a decoded JSON value (`map[string]interface {}{"channel":"fast"}`): the
 * API server shows a list-map's duplicate key that way. Keys sorted as Go's fmt sorts map keys; cut at
 * `limits.valueChars` without printing the rest.
 */
export function goSyntax(value: unknown, max: number = limits.valueChars): string {
  const parts: string[] = [];
  let length = 0;
  const add = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const write = (node: unknown, inInterface: boolean): void => {
    if (length > max) return;
    if (node === null || node === undefined) add(inInterface ? "interface {}(nil)" : "<nil>");
    else if (typeof node === "string") add(JSON.stringify(node.length > max ? node.slice(0, max + 1) : node));
    else if (typeof node === "number" || typeof node === "boolean") add(String(node));
    else if (Array.isArray(node)) {
      add("[]interface {}{");
      for (let i = 0; i < node.length && length <= max; i++) {
        if (i > 0) add(", ");
        write(node[i], true);
      }
      add("}");
    } else if (typeof node === "object") {
      add("map[string]interface {}{");
      const keys = Object.keys(node).sort();
      for (let i = 0; i < keys.length && length <= max; i++) {
        const key = keys[i] as string;
        add(`${i > 0 ? ", " : ""}${JSON.stringify(key)}:`);
        write((node as Record<string, unknown>)[key], true);
      }
      add("}");
    } else add(String(node));
  };
  write(value, false);
  const text = parts.join("");
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

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
