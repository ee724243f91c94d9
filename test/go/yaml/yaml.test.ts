import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseYaml, type YamlDialect } from "../../../src/go/yaml/dialects.js";
import { yamlScalars as scalars, yamlTable as table } from "./yaml-cases.js";

const value = (text: string, dialect: YamlDialect) => {
  const parsed = parseYaml(text, dialect);
  return "value" in parsed ? JSON.parse(JSON.stringify(parsed.value)) : `problem: ${parsed.problem}`;
};

describe("YAML per source, as addon-operator's parsers read it", () => {
  for (const [scalar, expected] of scalars) {
    it(`the scalar ${JSON.stringify(scalar)} as Go reads it, in both dialects`, () => {
      assert.deepEqual(value(`a: ${scalar}`, "sigs"), { a: expected });
      assert.deepEqual(value(`a: ${scalar}`, "yaml.v3"), { a: expected });
    });
  }
  for (const [text, v3, sigs] of table) {
    it(JSON.stringify(text), () => {
      assert.deepEqual(value(text, "yaml.v3"), v3);
      assert.deepEqual(value(text, "sigs"), sigs);
    });
  }

  it("builds maps without a prototype: __proto__ and constructor are own keys", () => {
    const parsed = parseYaml("__proto__: {a: 1}\nconstructor: 2\n", "yaml.v3");
    assert.ok("value" in parsed);
    const map = parsed.value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(map), null);
    assert.deepEqual(Object.keys(map), ["__proto__", "constructor"]);
    assert.equal(Object.hasOwn(map, "toString"), false);
  });
});
