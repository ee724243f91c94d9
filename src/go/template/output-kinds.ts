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

type Resolve = (path: string[]) => PrintedValue;

/** The texts one part can print; null when it can print anything (or too many to list). */
function partTexts(part: OutputPart, resolve: Resolve): string[] | null {
  if (part.kind === "text") return [part.text];
  if (part.kind === "dynamic") return null;
  if (part.kind === "choice") {
    const texts: string[] = [];
    for (const option of part.options) {
      const optionTexts = outputTexts(option, resolve);
      if (optionTexts === null) return null;
      texts.push(...optionTexts);
    }
    return texts;
  }
  const printed = resolve(part.path);
  switch (printed.kind) {
    case "text":
      return [printed.text];
    case "integer":
      return integerSamples;
    case "boolean":
      return ["true", "false"];
    case "any":
      return null;
  }
}

/** Every text the parts can print (standing for all of them), or null. */
function outputTexts(output: readonly OutputPart[], resolve: Resolve): string[] | null {
  let texts = [""];
  for (const part of output) {
    const options = partTexts(part, resolve);
    if (options === null || texts.length * options.length > maxCombinations) return null;
    const next: string[] = [];
    let work = 0;
    for (const text of texts) {
      for (const option of options) {
        const joined = text + option;
        work += joined.length;
        next.push(joined);
      }
    }
    if (work > maxWork) return null;
    texts = next;
  }
  return texts;
}

/** The text every output begins with: its parts up to the first that can print more than one text. */
function fixedPrefix(output: readonly OutputPart[], resolve: Resolve): string {
  let prefix = "";
  for (const part of output) {
    const texts = part.kind === "text" || part.kind === "field" ? partTexts(part, resolve) : null;
    if (texts?.length !== 1) break;
    prefix += texts[0];
    if (prefix.trimStart() !== "") break;
  }
  return prefix;
}

/**
 * The set of JSON kinds the output can decode to, over every value the fields may take. One kind
 * means the outcome is certain; "text" means it stays the string it rendered.
 */
export function outputJsonKinds(output: readonly OutputPart[], resolve: Resolve): Set<JsonKind> {
  const texts = outputTexts(output, resolve);
  if (texts === null) return kindsAfterPrefix(fixedPrefix(output, resolve));
  const kinds = new Set<JsonKind>();
  for (const text of texts) kinds.add(jsonKind(text));
  return kinds;
}
