import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseYaml, type YamlDialect } from "../../src/addon-operator/yaml.js";

const value = (text: string, dialect: YamlDialect) => {
  const parsed = parseYaml(text, dialect);
  return "value" in parsed ? JSON.parse(JSON.stringify(parsed.value)) : `problem: ${parsed.problem}`;
};

describe("YAML per source, as addon-operator's parsers read it", () => {
  // [text, yaml.v3 (module sections), sigs.k8s.io/yaml (global, schemas, values.yaml)]
  const table: [string, unknown, unknown][] = [
    ["a: yes", { a: "yes" }, { a: true }],
    ["a: on", { a: "on" }, { a: true }],
    ["a: 0755", { a: 493 }, { a: 493 }],
    ["a: 0o17", { a: 15 }, { a: "0o17" }],
    ["a: 0b101", { a: 5 }, { a: 5 }],
    ["a: 1_000", { a: 1000 }, { a: 1000 }],
    ["a: 0x1F", { a: 31 }, { a: 31 }],
    ["a: 1:20", { a: "1:20" }, { a: "1:20" }],
    ["a: 2001-12-14", { a: "2001-12-14" }, { a: "2001-12-14" }],
    ["a: !!binary aGVsbG8=", { a: "hello" }, { a: "hello" }],
    [
      "b: &x {c: 1}\na:\n  <<: *x\n  d: 2",
      { b: { c: 1 }, a: { c: 1, d: 2 } },
      { b: { c: 1 }, a: { c: 1, d: 2 } },
    ],
    [
      "1: a",
      "problem: map key 1 at the top is not a string: addon-operator's JSON conversion fails",
      { 1: "a" },
    ],
    [
      "a: .inf",
      "problem: Infinity at a has no JSON form: addon-operator's JSON conversion fails",
      "problem: Infinity at a has no JSON form: addon-operator's JSON conversion fails",
    ],
    ["a: 1\na: 2", "problem: Map keys must be unique at line 2, column 1:", { a: 2 }],
    ["", null, null],
  ];
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
