import { type PlainBlockDialect, readPlainBlock, unsure } from "../../base/plain-block.js";
import { type GoYamlLibrary, resolvePlain } from "./scalars.js";

/**
 * A reader for the plainest block YAML, giving the tree the `yaml` package and `goKeysAndFlowScalars`
 * would give `toPlain` (maps as `Map`s, scalars as Go resolves them), or `undefined` when it is not
 * sure, so that the caller parses the text in full. It reads block maps and block lists (a list item
 * may open a map: `- name: x`), printable ASCII only, with whole-line comments and blank lines; a scalar
 * is on its key's or item's line: plain (one line, no `#`, no `: `, no indicator to start it), or
 * single-quoted or double-quoted without escapes. Plain scalars are resolved by `resolvePlain`, the
 * function the full parse resolves them with; a key must resolve to a string. Anything else (empty
 * values, block scalars, flow collections, anchors, tags, merge keys, multi-line scalars, repeated keys,
 * odd indentation, tabs, CR, non-ASCII, directives, document markers) gives up. The structure is
 * src/base/plain-block.ts's (shared with js-yaml's reader), with Go's resolution; held to the full parse
 * by test/go/yaml/plain-block.test.ts.
 *
 * Why: an addon-operator ConfigMap's sections are small and mostly this plain; the `yaml` package builds
 * a document, its schema, tokens and nodes for each (about 7 KB and 30 µs a section), which a
 * ConfigMap of many sections paid hundreds of times a review, its garbage collected while the parsed
 * review was alive.
 */
export function readGoPlainBlock(text: string, library: GoYamlLibrary): unknown {
  return readPlainBlock(text, dialects[library]);
}

/** Go's reading for one library: maps as `Map`s of string keys, scalars resolved as the full parse does. */
function goDialect(library: GoYamlLibrary): PlainBlockDialect<Map<string, unknown>> {
  // A scalar the resolution throws on is the full parse's to report.
  const resolve = (plain: string): unknown => {
    try {
      return resolvePlain(plain, library);
    } catch {
      throw unsure;
    }
  };
  return {
    plainScalar: /^(?:[^-?:,[\]{}#&*!|>'"%@` ~]|-(?=[^ ]))[^#]*$/,
    resolve,
    // A key Go reads as a number, a bool, null or a time is the full parse's to refuse or convert.
    key: (written) => {
      const key = resolve(written);
      return typeof key === "string" ? key : undefined;
    },
    newMap: () => new Map(),
    has: (map, key) => map.has(key),
    set: (map, key, value) => {
      map.set(key, value);
    },
    // An empty value: null to Go, left to the parser.
    emptyValue: () => {
      throw unsure;
    },
    emptyCollections: false,
    leadingMarker: false,
  };
}

const dialects: Record<GoYamlLibrary, PlainBlockDialect<Map<string, unknown>>> = {
  "yaml.v2": goDialect("yaml.v2"),
  "yaml.v3": goDialect("yaml.v3"),
};
