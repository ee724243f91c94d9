import { CORE_SCHEMA } from "js-yaml";
import { type PlainBlockDialect, readPlainBlock, unsure } from "../base/plain-block.js";

/**
 * A reader for the plainest block YAML, giving exactly js-yaml's value (its default CORE_SCHEMA) or
 * `undefined` when it is not sure, so that the caller reads the document with js-yaml. It reads block
 * maps and block lists (a list item may open a map: `- name: x`), printable ASCII only, with whole-line
 * comments and blank lines; a scalar is on its key's or item's line: plain (one line, no `#`, no `: `,
 * no indicator to start it), single-quoted or double-quoted without escapes, or an empty `[]` / `{}`.
 * Plain scalars and keys are resolved by js-yaml's own schema (`resolveImplicitScalarTag`, as its loader
 * does), so `1`, `true`, `null`, `1.5e3` are what js-yaml makes of them. Anything else (block scalars,
 * flow collections, anchors, tags, multi-line scalars, duplicate keys, `__proto__`, odd indentation,
 * tabs, CR, non-ASCII) gives up. The structure is src/base/plain-block.ts's, shared with Go's reader.
 * Held to js-yaml by test/manifests/yaml-plain-block.test.ts.
 *
 * Four to five times cheaper than js-yaml on the manifests `validate` reads most: where a CI run spends
 * its time on many plain manifests.
 */
export function readPlainBlockYaml(text: string): unknown {
  return readPlainBlock(text, jsYaml);
}

/**
 * js-yaml's own resolution of a plain scalar (an internal method of its Schema, the one its loader
 * calls). Should a js-yaml release drop it, the reader gives up on every document and js-yaml reads all.
 */
const schema = CORE_SCHEMA as unknown as { resolveImplicitScalarTag?(source: string): { value: unknown } };
const resolveImplicit =
  typeof schema.resolveImplicitScalarTag === "function"
    ? schema.resolveImplicitScalarTag.bind(CORE_SCHEMA)
    : () => {
        throw unsure;
      };

/** js-yaml's reading: keys as their scalars' text, plain objects, an empty value null, `[]` and `{}`. */
const jsYaml: PlainBlockDialect<Record<string, unknown>> = {
  plainScalar: /^(?:[^-?:,[\]{}#&*!|>'"%@` ]|-(?=[^ ]))[^#]*$/,
  resolve: (plain) => resolveImplicit(plain).value,
  key: (written) => String(resolveImplicit(written).value),
  newMap: () => ({}),
  has: (map, key) => Object.hasOwn(map, key),
  set: (map, key, value) => {
    map[key] = value;
  },
  emptyValue: () => null,
  emptyCollections: true,
  leadingMarker: true,
};
