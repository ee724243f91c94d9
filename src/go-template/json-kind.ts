/**
 * What Go's encoding/json makes of a string decoded into `any` (`json.Unmarshal([]byte(s), &v)`):
 * the Forkspacer operator does this to every rendered template, keeps the decoded value when there
 * is no error, and the string otherwise (api/v1/module_types.go, renderInterface).
 *
 * "text" means Unmarshal fails, so the string stays as rendered. Go fails where JavaScript's
 * JSON.parse would not: a number beyond float64 (`1e400`, anywhere in the value) and nesting deeper
 * than 10000 (encoding/json's scanner limit).
 */
export type JsonKind = "text" | "number" | "boolean" | "null" | "string" | "array" | "object";

/** encoding/json's maxNestingDepth. */
const maxJsonDepth = 10000;

const numberRun = /-?[0-9][0-9eE+\-.]*/y;

/** Whether Go would fail where JSON.parse does not: a number beyond float64, or nesting too deep. */
function goRefuses(s: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > maxJsonDepth) return true;
    } else if (c === "]" || c === "}") depth--;
    else if (c === "-" || (c >= "0" && c <= "9")) {
      numberRun.lastIndex = i;
      const run = numberRun.exec(s)?.[0] ?? c;
      if (!Number.isFinite(Number(run)) && !Number.isNaN(Number(run))) return true;
      i += run.length - 1;
    }
  }
  return false;
}

export function jsonKind(rendered: string): JsonKind {
  if (goRefuses(rendered)) return "text";
  let value: unknown;
  try {
    value = JSON.parse(rendered);
  } catch {
    return "text";
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    default:
      return "object";
  }
}
