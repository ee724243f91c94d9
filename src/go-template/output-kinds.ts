/**
 * Which JSON kinds a template's output can decode to (see json-kind.ts), from its output parts and
 * what the caller knows each printed field to be. Used to say a rendered value will certainly be a
 * number (or a boolean...), or certainly stay a string, or may be either.
 */
import type { OutputPart } from "./analysis.js";
import { type JsonKind, jsonKind } from "./json-kind.js";

/** What printing a field gives, as far as the caller knows. */
export type PrintedValue =
  /** Exactly this text (a known string, or `<no value>` for a key the data lacks). */
  | { kind: "text"; text: string }
  /** A Go int, printed in decimal. */
  | { kind: "integer" }
  /** A Go bool: `true` or `false`. */
  | { kind: "boolean" }
  /** Any text. */
  | { kind: "any" };

/**
 * Integers that stand for every int64 in where a JSON decoder can tell them apart: zero (a leading
 * zero is not JSON), one digit, a sign, several digits, and a large exponent (`1e999` overflows).
 */
const integerSamples = ["0", "7", "-7", "10", "999"];
const maxCombinations = 256;
/** Characters of candidate texts to decode at most, so that a long template costs linear time. */
const maxWork = 1 << 20;
const allKinds: readonly JsonKind[] = ["text", "number", "boolean", "null", "string", "array", "object"];

/** The kinds a text starting with `prefix` (and going on with anything) can decode to. */
function kindsAfterPrefix(prefix: string): Set<JsonKind> {
  const first = prefix.trimStart()[0];
  if (first === undefined) return new Set(allKinds);
  const byFirst: Record<string, JsonKind> = {
    '"': "string",
    "[": "array",
    "{": "object",
    t: "boolean",
    f: "boolean",
    n: "null",
  };
  const kind = first === "-" || (first >= "0" && first <= "9") ? "number" : byFirst[first];
  return new Set<JsonKind>(kind ? ["text", kind] : ["text"]);
}

/**
 * The set of JSON kinds the output can decode to, over every value the fields may take. One kind
 * means the outcome is certain; "text" means it stays the string it rendered.
 */
export function outputJsonKinds(
  output: readonly OutputPart[],
  resolve: (path: string[]) => PrintedValue,
): Set<JsonKind> {
  const choices: string[][] = [];
  let prefix = "";
  let exactSoFar = true;
  for (const part of output) {
    const printed: PrintedValue =
      part.kind === "text" ? part : part.kind === "field" ? resolve(part.path) : { kind: "any" };
    const options =
      printed.kind === "text"
        ? [printed.text]
        : printed.kind === "integer"
          ? integerSamples
          : printed.kind === "boolean"
            ? ["true", "false"]
            : null;
    if (options === null) return kindsAfterPrefix(prefix);
    if (exactSoFar && options.length === 1) prefix += options[0];
    else exactSoFar = false;
    choices.push(options);
  }
  const combinations = choices.reduce((n, options) => n * options.length, 1);
  const longest = choices.reduce((n, options) => n + Math.max(...options.map((o) => o.length)), 0);
  if (combinations > maxCombinations || combinations * longest > maxWork) return kindsAfterPrefix(prefix);
  const kinds = new Set<JsonKind>();
  const walk = (i: number, text: string) => {
    if (i === choices.length) kinds.add(jsonKind(text));
    else for (const option of choices[i] as string[]) walk(i + 1, text + option);
  };
  walk(0, "");
  return kinds;
}
