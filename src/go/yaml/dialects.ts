import {
  type Document,
  type DocumentOptions,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type ParseOptions,
  parseAllDocuments,
  type ScalarTag,
  type SchemaOptions,
  type Tags,
  visit,
} from "yaml";
import { emptyMap } from "../../base/empty-map.js";
import { asSentByClient, int64Max, int64Value } from "../../base/exact-json.js";
import { readGoPlainBlock } from "./plain-block.js";
import { GoResolveError, GoTimestamp, type GoYamlLibrary, resolvePlain, resolveTagged } from "./scalars.js";

/**
 * YAML as addon-operator reads it, per source:
 *
 * - `yaml.v3` (gopkg.in/yaml.v3, module sections of the ConfigMap): YAML 1.2 core, except that integers
 *   are read as Go's `strconv.ParseInt(s, 0, 64)` reads them with `_` removed (`0755` is 493, `0b101` is
 *   5, `1_000` is 1000); merge keys and `!!binary` (a string of the bytes) work; a timestamp becomes a
 *   time.Time, written by JSON in RFC 3339 (`2001-12-14` is `2001-12-14T00:00:00Z`). addon-operator
 *   then makes a JSON round trip, which fails on a map key that is not a string and on `.inf`/`.nan`.
 * - `sigs` (sigs.k8s.io/yaml: `global`, schema files, values.yaml files): YAML 1.1 (`yes` is true,
 *   `0755` is 493), merge keys, timestamps stay strings, no sexagesimal numbers, a repeated key keeps
 *   the last value; map keys become strings (`1:` is `"1"`, a float key as a float32, `-0.0:` is
 *   `"-0"`), a null key or one above int64 fails; `.inf`/`.nan` values fail the JSON conversion.
 *
 * Every scalar is resolved as Go resolves it (go-scalars.ts), explicit core tags included: no YAML 1.1
 * or 1.2 rule of the JavaScript parser decides.
 * - `kyaml` (sigs.k8s.io/kustomize/kyaml, as kustomize, Flux and `kubectl -k` turn a resource into
 *   JSON: RNode.MarshalJSON re-emits the node and decodes it with yaml.v3 into map[string]any): yaml.v3's
 *   values, map keys as their text, and inside a flow collection a timestamp with a time of day stays
 *   text (the emitter quotes a flow scalar holding `:`).
 *
 * Maps are built without a prototype, so `__proto__`, `constructor` and `prototype` are keys like any
 * other. Work is bounded: aliases may expand to at most `maxAliasCount` nodes (a billion-laughs
 * document is refused, not expanded), and nesting deeper than `maxDepth` is refused with its path.
 */
export type YamlDialect = "yaml.v3" | "sigs" | "kyaml";

export type ParsedYaml = { value: unknown } | { problem: string; line?: number };

/** Deeper nesting than any real config or schema: beyond it a value is refused with its path. */
export const maxDepth = 100;
/** How many nodes aliases may expand to in one document (the `yaml` package's own default). */
export const maxAliasCount = 100;

/** The core scalar tags the JavaScript parser would resolve by its own YAML 1.1 or 1.2 rules. */
const coreScalar = /:(?:null|bool|int|float|timestamp)$/;
const tagId = (tag: Tags[number]) => (typeof tag === "string" ? tag : tag.tag);

/**
 * Go's resolution in place of the parser's: one tag for every plain scalar (resolvePlain), and the
 * explicit core tags (`!!int`, `!!float`, `!!bool`, `!!null`, `!!timestamp`) resolved as Go resolves
 * them, a misfit being an error of the document.
 */
function goTags(library: GoYamlLibrary): ScalarTag[] {
  const plain: ScalarTag = {
    tag: "tag:module-admission,2026:go-plain",
    default: true,
    test: /[\s\S]*/,
    resolve: (text: string) => resolvePlain(text, library) as unknown as string,
  };
  const tagged = (["null", "bool", "int", "float", "timestamp"] as const).map(
    (core): ScalarTag => ({
      tag: `tag:yaml.org,2002:${core}`,
      resolve: (text: string, onError: (message: string) => void) => {
        try {
          return resolveTagged(core, text, library) as unknown as string;
        } catch (error) {
          if (!(error instanceof GoResolveError)) throw error;
          onError(error.message);
          return text;
        }
      },
    }),
  );
  return [plain, ...tagged];
}

/** The parser's tags with its core scalars replaced by Go's resolution (and `!!binary` kept). */
const goCustomTags =
  (library: GoYamlLibrary) =>
  (tags: Tags): Tags => [...tags.filter((tag) => !coreScalar.test(tagId(tag))), ...goTags(library), "binary"];

const options: Record<YamlDialect, ParseOptions & DocumentOptions & SchemaOptions> = {
  "yaml.v3": {
    version: "1.2",
    merge: true,
    // The package compares each key with every earlier one (20,000 keys took 6 s): repeated keys are
    // found by `repeatedKey` in one pass instead.
    uniqueKeys: false,
    customTags: goCustomTags("yaml.v3"),
  },
  kyaml: {
    version: "1.2",
    merge: true,
    uniqueKeys: false,
    customTags: goCustomTags("yaml.v3"),
  },
  sigs: {
    version: "1.1",
    merge: true,
    uniqueKeys: false,
    customTags: goCustomTags("yaml.v2"),
  },
};

/**
 * Called with the text's length once the cheap checks have passed it, before the parser runs (about
 * 2 µs a character): a webhook charges its work budget, which throws when the review cannot pay.
 */
export type ParseCharge = (chars: number) => void;

/**
 * How numbers come out: `float` (the default), every number a JavaScript number; `json`, as the API
 * server reads them once a Go client has written the YAML's value as JSON (src/base/exact-json.ts):
 * an int64 exactly (a bigint beyond 2^53-1), a uint64 above it a float64, an integral float64 within
 * int64 an int64 (Go writes it with every digit).
 */
export type YamlNumbers = "float" | "json";

export function parseYaml(
  text: string,
  dialect: YamlDialect,
  charge?: ParseCharge,
  numbers: YamlNumbers = "float",
): ParsedYaml {
  return parseWith(text, dialect, charge, numbers, true);
}

/** `parseYaml` by the parser alone, never the plain reader: what test/go/yaml/plain-block.test.ts holds it to. */
export function parseYamlInFull(
  text: string,
  dialect: YamlDialect,
  charge?: ParseCharge,
  numbers: YamlNumbers = "float",
): ParsedYaml {
  return parseWith(text, dialect, charge, numbers, false);
}

function parseWith(
  text: string,
  dialect: YamlDialect,
  charge: ParseCharge | undefined,
  numbers: YamlNumbers,
  plainFirst: boolean,
): ParsedYaml {
  // Twice the limit: up to there the parser is cheap and the conversion below names the path.
  const tooDeep = nestingBeyond(text, 2 * maxDepth);
  if (tooDeep !== undefined) return { problem: `nesting deeper than ${maxDepth} levels`, line: tooDeep };
  const directives = versionDirectives(text);
  if ("problem" in directives) return directives;
  charge?.(text.length);
  // The plainest block YAML (a ConfigMap's module sections, mostly) is read without the parser: the same
  // tree, the same conversion below (src/go/yaml/plain-block.ts).
  let js: unknown =
    plainFirst && dialect === "yaml.v3" ? readGoPlainBlock(directives.text, "yaml.v3") : undefined;
  if (js === undefined)
    try {
      const lineCounter = new LineCounter();
      const doc = firstDocument(directives.text, dialect, lineCounter);
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
      const repeated = dialect !== "sigs" ? repeatedKey(doc, lineCounter) : undefined;
      if (repeated) return repeated;
      goKeysAndFlowScalars(doc, dialect);
      js = doc.toJS({ mapAsMap: true, maxAliasCount });
    } catch (error) {
      if (error instanceof PlainError) return { problem: error.message };
      const message = (error as Error).message;
      if (/alias/i.test(message)) {
        return { problem: `aliases expand to more than ${maxAliasCount} nodes (refused unexpanded)` };
      }
      if (error instanceof RangeError) return { problem: `nesting deeper than ${maxDepth} levels` };
      return { problem: message };
    }
  try {
    return { value: toPlain(js, dialect, [], 0, numbers) };
  } catch (error) {
    if (error instanceof PlainError) return { problem: error.message };
    throw error;
  }
}

/**
 * The text's first document. libyaml reads a `-` directly before `,`, `]` or `}` in a flow collection as
 * the plain scalar "-" (`[-]` is `["-"]`), where the JavaScript parser sees a block sequence and
 * refuses it: such a dash is quoted and the text parsed again (the value is the same string).
 */
function firstDocument(text: string, dialect: YamlDialect, lineCounter: LineCounter): Document | undefined {
  let source = text;
  for (let attempt = 0; attempt < 100; attempt++) {
    const docs = parseAllDocuments(source, { ...options[dialect], lineCounter });
    const doc = Array.isArray(docs) ? docs[0] : undefined;
    const error = doc?.errors[0];
    const at = error?.code === "BLOCK_IN_FLOW" ? error.pos[0] : -1;
    if (at < 0 || source[at] !== "-" || !",]}".includes(source[at + 1] ?? "")) return doc;
    source = `${source.slice(0, at)}"-"${source.slice(at + 1)}`;
  }
  return undefined;
}

/**
 * Map keys as Go turns them into JSON keys, before the parser's maps lose them (a -0 key would become
 * 0): a `!!binary` key as the text of its bytes (but for yaml.v3); under sigs.k8s.io/yaml every key by sigsKey; under
 * kyaml every key as its text. Under kyaml, a timestamp with a time of day inside a flow collection
 * stays text, and a null key drops its pair.
 */
function goKeysAndFlowScalars(doc: Document, dialect: YamlDialect): void {
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key;
      if (!isScalar(key)) return undefined;
      // yaml.v3 decodes such a key into `any` as bytes, which JSON cannot take as a key.
      if (key.value instanceof Uint8Array && dialect !== "yaml.v3")
        key.value = new TextDecoder().decode(key.value);
      // The merge key `<<` is the parser's own (a symbol); strings are keys already.
      if (typeof key.value === "string" || typeof key.value === "symbol") return undefined;
      if (dialect === "sigs") key.value = sigsKey(key.value, []);
      else if (dialect === "kyaml") {
        // Decoded into a string, a null key is no key: yaml.v3 skips the pair.
        if (key.value === null) return visit.REMOVE;
        key.value = (key as { source?: string }).source ?? String(key.value);
      }
      return undefined;
    },
    Scalar(_, scalar, path) {
      if (dialect !== "kyaml" || !(scalar.value instanceof GoTimestamp)) return;
      const source = (scalar as { source?: string }).source ?? "";
      const inFlow = path.some((node) => (isMap(node) || isSeq(node)) && node.flow === true);
      if (inFlow && source.includes(":")) scalar.value = source;
    },
  });
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

/**
 * A decoded key as sigs.k8s.io/yaml turns it into a JSON key (yaml.go, convertToJSONableObject): an
 * int in decimal, a float as strconv.FormatFloat(f, 'g', -1, 32) (`.inf`, `-.inf`, `.nan` for the
 * infinities and NaN), a bool as true or false; any other key (null, a uint64 above int64) fails.
 */
function sigsKey(key: unknown, path: string[]): string {
  if (typeof key === "string") return key;
  if (typeof key === "boolean") return String(key);
  if (typeof key === "bigint" && key < 2n ** 63n) return String(key);
  if (typeof key === "number") return formatFloat32(key);
  const type = typeof key === "bigint" ? "uint64" : key === null ? "nil" : typeof key;
  throw new PlainError(
    `a map key ${where(path)} of type ${type} has no JSON form (sigs.k8s.io/yaml: unsupported map key)`,
  );
}

/** strconv.FormatFloat(x, 'g', -1, 32): the shortest digits that read back as the same float32. */
function formatFloat32(x: number): string {
  const f = Math.fround(x);
  if (Number.isNaN(f)) return ".nan";
  if (!Number.isFinite(f)) return f > 0 ? ".inf" : "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  let exponential = f.toExponential(8);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = f.toExponential(digits - 1);
    if (Math.fround(Number(candidate)) === f) {
      exponential = candidate;
      break;
    }
  }
  const [mantissa = "", exp = "0"] = exponential.split("e");
  const e = Number(exp);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digitsOnly = mantissa.replace(/^-/, "").replace(".", "");
  if (e < -4 || e >= 6) {
    const m = digitsOnly.length > 1 ? `${digitsOnly[0]}.${digitsOnly.slice(1)}` : digitsOnly;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digitsOnly}`;
  const whole = digitsOnly.slice(0, e + 1).padEnd(e + 1, "0");
  const fraction = digitsOnly.slice(e + 1);
  return `${sign}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

const describeKey = (key: unknown): string =>
  typeof key === "bigint"
    ? String(key)
    : key instanceof GoTimestamp
      ? key.json
      : (JSON.stringify(key) ?? String(key));

function toPlain(
  value: unknown,
  dialect: YamlDialect,
  path: string[],
  depth: number,
  numbers: YamlNumbers,
): unknown {
  if (depth > maxDepth) throw new PlainError(`nesting deeper than ${maxDepth} levels ${where(path)}`);
  if (value instanceof Map) {
    const map = emptyMap();
    for (const [rawKey, item] of value) {
      let key: string;
      if (typeof rawKey === "string") key = rawKey;
      else {
        throw new PlainError(
          `map key ${describeKey(rawKey)} ${where(path)} is not a string: addon-operator's JSON conversion fails`,
        );
      }
      map[key] = toPlain(item, dialect, [...path, key], depth + 1, numbers);
    }
    return map;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => toPlain(item, dialect, [...path, String(index)], depth + 1, numbers));
  }
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof GoTimestamp) return value.json;
  if (typeof value === "bigint")
    return numbers === "json" && value <= int64Max ? int64Value(value) : Number(value);
  if (typeof value === "number" && numbers === "json" && Number.isFinite(value)) return asSentByClient(value);
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new PlainError(
      `${String(value)} ${where(path)} has no JSON form: addon-operator's JSON conversion fails`,
    );
  }
  if (value instanceof Set)
    return toPlain(new Map([...value].map((item) => [item, null])), dialect, path, depth, numbers);
  return value;
}
