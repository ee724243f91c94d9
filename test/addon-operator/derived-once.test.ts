import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { schemaMap } from "../../src/addon-operator/schema.js";
import { applyDefaults, effectiveValues, mergeValues } from "../../src/addon-operator/values.js";

/** Values built from input have no prototype: compared as plain JSON. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

const schema = {
  type: "object",
  properties: {
    replicas: { type: "integer", default: 2 },
    nested: {
      type: "object",
      default: {},
      properties: { port: { type: "integer", default: 8080 }, tags: { type: "array", default: ["a"] } },
    },
    servers: { type: "array", items: { type: "object", properties: { host: { default: "localhost" } } } },
    skipped: { type: "string", default: null },
    notASchema: 3,
  },
};

describe("what is derived once per schema object", () => {
  it("effectiveValues is the defaults of {} under the user's values, a new value every time", () => {
    const cases: unknown[] = [
      {},
      { replicas: 5 },
      { nested: { port: 1 } },
      { nested: null },
      [],
      "x",
      { servers: [{}] },
    ];
    for (const values of cases) {
      const expected = plain(mergeValues(applyDefaults({}, schema), values));
      assert.deepEqual(plain(effectiveValues(values, schema)), expected, JSON.stringify(values));
    }
    const first = effectiveValues({}, schema) as { nested: { port: number; tags: string[] } };
    first.nested.port = 1;
    first.nested.tags.push("b");
    const second = effectiveValues({}, schema);
    assert.deepEqual(plain(second), { replicas: 2, nested: { port: 8080, tags: ["a"] } });
  });

  it("schemaMap: the entries whose values are schemas, the same (frozen) list on every call", () => {
    const entries = schemaMap(schema, "properties");
    assert.deepEqual(
      entries.map(([key]) => key),
      ["replicas", "nested", "servers", "skipped"],
    );
    assert.equal(schemaMap(schema, "properties"), entries);
    assert.ok(Object.isFrozen(entries));
    assert.deepEqual(schemaMap(schema, "patternProperties"), []);
    assert.deepEqual(schemaMap({ properties: [{ type: "string" }] }, "properties"), []);
  });
});
