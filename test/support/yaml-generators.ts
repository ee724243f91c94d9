import fc from "fast-check";

/**
 * Random objects for js-yaml to write, of maps, lists and scalars: `keys` and `scalars` are the texts
 * a test wants to see often (besides random strings up to `maxString` characters), as keys and values.
 */
export function yamlValues(keys: string[], scalars: string[], maxString: number) {
  const key = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 6 }));
  const scalar = fc.oneof(
    fc.string({ maxLength: maxString }),
    fc.constantFrom(...scalars),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, scalar, tie("list"), tie("map")),
    list: fc.array(tie("value"), { maxLength: 4 }),
    map: fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  }));
  return { key, value };
}

/** js-yaml's dump options that change the text's shape: indents, flow levels, quoting. */
export const yamlStyles = fc.record({
  indent: fc.integer({ min: 1, max: 4 }),
  noArrayIndent: fc.boolean(),
  flowLevel: fc.constantFrom(-1, -1, 1, 2),
  lineWidth: fc.constantFrom(80, 20, -1),
  forceQuotes: fc.boolean(),
  quotingType: fc.constantFrom("'" as const, '"' as const),
});
