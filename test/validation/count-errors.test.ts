import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import fc from "fast-check";
import { errorCounter, type Tally } from "../../src/validation/count-errors.js";
import { checkerOptions } from "../../src/validation/structure.js";

// The structure check's full pass, as src/validation/structure.ts compiles it.
const ajv = new Ajv({ ...checkerOptions, allErrors: true, verbose: true });

/** What Ajv's full pass lists, as the counter tallies it. */
function ajvTally(schema: object, value: unknown): Tally {
  const validate = ajv.compile(schema);
  validate(value);
  const errors = validate.errors ?? [];
  return {
    problems: errors.filter((error) => error.keyword !== "additionalProperties").length,
    type: errors.some((error) => error.keyword === "type"),
    unknown: errors.filter((error) => error.keyword === "additionalProperties").length,
  };
}

function counted(schema: object, value: unknown): Tally | undefined {
  const counter = errorCounter(schema);
  if (!counter) return undefined;
  const tally = { problems: 0, type: false, unknown: 0 };
  counter(value, tally);
  return tally;
}

// Names that read something on any object (`constructor`), need quoting, or are numbers.
const names = fc.constantFrom("a", "b", "name", "x-y", "constructor", "toString", "0", "");
// Code points of each width, a lone surrogate among them, for lengths and `u` patterns.
const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom("abc", "ABC", "1.2.0", "é", "😀", "😀😀", "\ud83d", "a\ud83dx", "regular7", ""),
);
const number = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(0.5, -1.5, 2.25, 1e21));
const annotated = (schema: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(
      schema,
      fc.record(
        { description: fc.constant("d"), "x-kubernetes-int-or-string": fc.boolean() },
        { requiredKeys: [] },
      ),
    )
    .map(([s, extra]) => ({ ...extra, ...s }));

const { schema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    annotated(
      fc.record(
        {
          type: fc.constant("string"),
          minLength: fc.nat(4),
          maxLength: fc.nat(4),
          pattern: fc.constantFrom("^[a-z]+$", "^[0-9.]+$", "b", "^.{2}$", "^\\p{L}*$"),
          enum: fc.array(text, { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: ["type"] },
      ),
    ),
    annotated(
      fc.record(
        {
          type: fc.constantFrom("integer", "number"),
          minimum: number,
          maximum: number,
          enum: fc.array(number, { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: ["type"] },
      ),
    ),
    fc.record(
      { type: fc.constantFrom("boolean", "null"), const: fc.constantFrom(true, null, 1) },
      { requiredKeys: ["type"] },
    ),
    fc.constant({}),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(names, tie("schema"), { maxKeys: 3 }),
        required: fc.uniqueArray(names, { maxLength: 3 }),
        additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record(
      { type: fc.constant("array"), items: tie("schema"), minItems: fc.nat(2), maxItems: fc.nat(2) },
      { requiredKeys: ["type"] },
    ),
  ),
}));

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    number,
    fc.constantFrom(true, false, null),
    fc.dictionary(names, tie("value"), { maxKeys: 4 }),
    fc.array(tie("value"), { maxLength: 3 }),
  ),
}));

describe("counting a schema's errors without Ajv (the structure check's entries past both bounds)", () => {
  it("counts what Ajv's full pass lists: errors, whether one is a type error, unknown fields", () => {
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 8 }), (generated, values) => {
        // JSON's own objects, as the server parses them.
        const [parsedSchema, ...parsed] = JSON.parse(JSON.stringify([generated, ...values]));
        for (const one of parsed) {
          const tally = counted(parsedSchema, one);
          assert.ok(tally, "a schema of the keywords counted has a counter");
          assert.deepEqual(tally, ajvTally(parsedSchema, one), JSON.stringify(one));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves to Ajv a schema with a keyword it does not count, wherever it is", () => {
    const unsupported = [
      { type: "string", format: "uri" },
      { type: ["string", "null"] },
      { type: "object", maxProperties: 2 },
      { type: "object", properties: { a: { allOf: [{ type: "string" }] } } },
      { type: "array", items: [{ type: "string" }] },
      { type: "object", additionalProperties: { type: "string", nullable: true } },
      { enum: [{ a: 1 }] },
      { minLength: 2 },
      { type: "string", minimum: 1 },
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
    ];
    for (const one of unsupported) assert.equal(errorCounter(one), undefined, JSON.stringify(one));
  });

  it("counts the entries the kinds' lists are cut into: ModuleReleaseMeta's channels", () => {
    const generated = JSON.parse(
      readFileSync(new URL("../../schemas/dist/modulereleasemeta.schema.json", import.meta.url), "utf8"),
    );
    const item = generated.properties.spec.properties.channels.items;
    assert.ok(errorCounter(item));
    for (const entry of [
      { channel: "regular0", version: "1.2.0" },
      { channel: "ab", version: "x", extra: 1 },
      { channel: 3 },
      "regular",
    ])
      assert.deepEqual(counted(item, entry), ajvTally(item, entry), JSON.stringify(entry));
  });
});
