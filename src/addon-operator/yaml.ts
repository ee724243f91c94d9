import {
  type Document,
  type DocumentOptions,
  isMap,
  isScalar,
  LineCounter,
  type ParseOptions,
  parseAllDocuments,
  type SchemaOptions,
  type Tags,
  visit,
} from "yaml";
import { goNumberTag } from "./go-numbers.js";
import { emptyMap } from "./schema.js";

/**
 * YAML as addon-operator reads it, per source:
 *
 * - `yaml.v3` (gopkg.in/yaml.v3, module sections of the ConfigMap): YAML 1.2 core, except that integers
 *   are read as Go's `strconv.ParseInt(s, 0, 64)` reads them with `_` removed (`0755` is 493, `0b101` is
 *   5, `1_000` is 1000); merge keys and `!!binary` (a string of the bytes) work; timestamps stay strings.
 *   addon-operator then makes a JSON round trip, which fails on a map key that is not a string and on
 *   `.inf`/`.nan`.
 * - `sigs` (sigs.k8s.io/yaml: `global`, schema files, values.yaml files): YAML 1.1 (`yes` is true,
 *   `0755` is 493), merge keys, timestamps stay strings, no sexagesimal numbers, a repeated key keeps
 *   the last value; map keys become strings (`1:` is `"1"`); `.inf`/`.nan` fail the JSON conversion.
 *
 * Maps are built without a prototype, so `__proto__`, `constructor` and `prototype` are keys like any
 * other. Work is bounded: aliases may expand to at most `maxAliasCount` nodes (a billion-laughs
 * document is refused, not expanded), and nesting deeper than `maxDepth` is refused with its path.
 */
export type YamlDialect = "yaml.v3" | "sigs";

export type ParsedYaml = { value: unknown } | { problem: string; line?: number };

/** Deeper nesting than any real config or schema: beyond it a value is refused with its path. */
export const maxDepth = 100;
/** How many nodes aliases may expand to in one document (the `yaml` package's own default). */
export const maxAliasCount = 100;

/** The tag's id (`tag:yaml.org,2002:int`) and format, for tags given as objects. */
const tagOf = (tag: Tags[number]) =>
  typeof tag === "string"
    ? { tag, format: undefined, test: undefined }
    : { tag: tag.tag, format: (tag as { format?: string }).format, test: (tag as { test?: RegExp }).test };

/**
 * Numbers are Go's (goNumberTag): every int and float rule of the JavaScript parser goes, except the
 * `.inf`/`.nan` names, which both Go libraries look up before they try a number.
 */
const numberRule = (tag: Tags[number]) => {
  const { tag: id, test } = tagOf(tag);
  if (id.endsWith(":int")) return true;
  return id.endsWith(":float") && !String(test).includes("inf");
};

const options: Record<YamlDialect, ParseOptions & DocumentOptions & SchemaOptions> = {
  "yaml.v3": {
    version: "1.2",
    merge: true,
    // The package compares each key with every earlier one (20,000 keys took 6 s): repeated keys are
    // found by `repeatedKey` in one pass instead.
    uniqueKeys: false,
    customTags: (tags: Tags) => [...tags.filter((tag) => !numberRule(tag)), goNumberTag, "binary"],
  },
  sigs: {
    version: "1.1",
    merge: true,
    uniqueKeys: false,
    customTags: (tags: Tags) => [
      ...tags.filter((tag) => !numberRule(tag) && !tagOf(tag).tag.endsWith(":timestamp")),
      goNumberTag,
    ],
  },
};

/**
 * Called with the text's length once the cheap checks have passed it, before the parser runs (about
 * 2 µs a character): a webhook charges its work budget, which throws when the review cannot pay.
 */
export type ParseCharge = (chars: number) => void;

export function parseYaml(text: string, dialect: YamlDialect, charge?: ParseCharge): ParsedYaml {
  // Twice the limit: up to there the parser is cheap and the conversion below names the path.
  const tooDeep = nestingBeyond(text, 2 * maxDepth);
  if (tooDeep !== undefined) return { problem: `nesting deeper than ${maxDepth} levels`, line: tooDeep };
  const directives = versionDirectives(text);
  if ("problem" in directives) return directives;
  charge?.(text.length);
  let js: unknown;
  try {
    const lineCounter = new LineCounter();
    const docs = parseAllDocuments(directives.text, { ...options[dialect], lineCounter });
    const doc = Array.isArray(docs) ? docs[0] : undefined;
    if (!doc) return { value: null };
    const [error] = doc.errors;
    if (error) {
      const line = error.linePos?.[0].line;
      const deep = /call stack/i.test(error.message);
      return {
        problem: deep ? `nesting deeper than ${maxDepth} levels` : (error.message.split("\n")[0] ?? ""),
        ...(line !== undefined ? { line } : {}),
      };
    }
    // yaml.v3 refuses a repeated key ("already defined"); sigs.k8s.io/yaml keeps the last value.
    const repeated = dialect === "yaml.v3" ? repeatedKey(doc, lineCounter) : undefined;
    if (repeated) return repeated;
    js = doc.toJS({ mapAsMap: true, maxAliasCount });
  } catch (error) {
    const message = (error as Error).message;
    if (/alias/i.test(message)) {
      return { problem: `aliases expand to more than ${maxAliasCount} nodes (refused unexpanded)` };
    }
    if (error instanceof RangeError) return { problem: `nesting deeper than ${maxDepth} levels` };
    return { problem: message };
  }
  try {
    return { value: toPlain(js, dialect, [], 0) };
  } catch (error) {
    if (error instanceof PlainError) return { problem: error.message };
    throw error;
  }
}

/**
 * The first key repeated within one map, found with a set of each map's scalar keys: linear, where
 * comparing each key with every earlier one is quadratic. Worded as the `yaml` package words it.
 */
function repeatedKey(doc: Document, lineCounter: LineCounter): { problem: string; line: number } | undefined {
  let found: { problem: string; line: number } | undefined;
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (!seen.has(key)) {
          seen.add(key);
          continue;
        }
        const { line, col } = lineCounter.linePos((pair.key as { range?: [number] } | null)?.range?.[0] ?? 0);
        found = { problem: `Map keys must be unique at line ${line}, column ${col}:`, line };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Go's YAML parsers (yaml.v2 and yaml.v3 share libyaml's) accept only `%YAML 1.1` and then ignore the
 * version: each keeps its own reading. The JavaScript parser would switch schema on the directive, so
 * in the first document's prologue a `%YAML 1.1` becomes a comment of the same length (lines and
 * columns stay), and any other version is refused as Go refuses it.
 */
function versionDirectives(text: string): { text: string } | { problem: string; line: number } {
  if (!text.includes("%YAML")) return { text };
  const lines = text.split("\n");
  let seen = false;
  for (const [index, line] of lines.entries()) {
    if (/^\s*(#.*)?$/.test(line) || (line.startsWith("%") && !line.startsWith("%YAML"))) continue;
    if (!/^%YAML[ \t]/.test(line)) break;
    if (seen) return { problem: "found duplicate %YAML directive", line: index + 1 };
    seen = true;
    const version = /^%YAML[ \t]+(\d+)\.(\d+)(?:[ \t]|$)/.exec(line);
    if (version?.[1] !== "1" || version[2] !== "1") {
      return { problem: "found incompatible YAML document", line: index + 1 };
    }
    lines[index] = `#${line.slice(1)}`;
  }
  return { text: lines.join("\n") };
}

/**
 * The line where flow collections (`[`, `{`) or compact block sequences (`- - -`) nest deeper than
 * `limit`, found in one linear pass: the parser's own work on such input grows faster than its size
 * (100,000 nested `[` take it seconds and hundreds of MB). Quoted text and comments are skipped;
 * anything this misjudges is left to the parser, whose depth errors are caught.
 */
function nestingBeyond(text: string, limit: number): number | undefined {
  let flow = 0;
  let line = 1;
  let compact = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === "\n") {
      line++;
      compact = 0;
      atLineStart = true;
      continue;
    }
    if (atLineStart && char === "-" && /[ \t]/.test(text.charAt(i + 1))) {
      if (++compact > limit) return line;
      continue;
    }
    if (char === " " || char === "\t") continue;
    atLineStart = false;
    if (char === "#" && /\s/.test(text.charAt(i - 1) || " ")) {
      while (i + 1 < text.length && text.charAt(i + 1) !== "\n") i++;
    } else if (char === '"' || char === "'") {
      while (i + 1 < text.length && text.charAt(i + 1) !== char && text.charAt(i + 1) !== "\n") i++;
      i++;
    } else if (char === "[" || char === "{") {
      if (++flow > limit) return line;
    } else if ((char === "]" || char === "}") && flow > 0) flow--;
  }
  return undefined;
}

class PlainError extends Error {}

const where = (path: string[]) => (path.length === 0 ? "at the top" : `at ${path.join(".")}`);

/** Go's fmt of a decoded key, as sigs.k8s.io/yaml turns it into a JSON key. */
function sigsKey(key: unknown, path: string[]): string {
  if (typeof key === "string") return key;
  if (typeof key === "number" || typeof key === "boolean" || typeof key === "bigint") return String(key);
  throw new PlainError(`a map key ${where(path)} is not a string, number or boolean: ${String(key)}`);
}

function toPlain(value: unknown, dialect: YamlDialect, path: string[], depth: number): unknown {
  if (depth > maxDepth) throw new PlainError(`nesting deeper than ${maxDepth} levels ${where(path)}`);
  if (value instanceof Map) {
    const map = emptyMap();
    for (const [rawKey, item] of value) {
      let key: string;
      if (dialect === "sigs") key = sigsKey(rawKey, path);
      else if (typeof rawKey === "string") key = rawKey;
      else {
        throw new PlainError(
          `map key ${JSON.stringify(rawKey) ?? String(rawKey)} ${where(path)} is not a string: addon-operator's JSON conversion fails`,
        );
      }
      map[key] = toPlain(item, dialect, [...path, key], depth + 1);
    }
    return map;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => toPlain(item, dialect, [...path, String(index)], depth + 1));
  }
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new PlainError(
      `${String(value)} ${where(path)} has no JSON form: addon-operator's JSON conversion fails`,
    );
  }
  if (value instanceof Set)
    return toPlain(new Map([...value].map((item) => [item, null])), dialect, path, depth);
  return value;
}
