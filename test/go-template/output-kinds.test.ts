import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonKind, outputJsonKinds, type PrintedValue, parseTemplate } from "../../src/go-template/index.js";

describe("jsonKind: what encoding/json's Unmarshal into any makes of a rendered string", () => {
  it("decodes numbers, booleans, null, strings, arrays and objects, with surrounding JSON whitespace", () => {
    assert.equal(jsonKind("1.2"), "number");
    assert.equal(jsonKind(" \t\r\n-3e2\n"), "number");
    assert.equal(jsonKind("true"), "boolean");
    assert.equal(jsonKind("null"), "null");
    assert.equal(jsonKind('"x"'), "string");
    assert.equal(jsonKind("[1]"), "array");
    assert.equal(jsonKind('{"a":1}'), "object");
  });

  it("leaves what Go does not decode as text: not JSON, numbers beyond float64, nesting deeper than 10000", () => {
    for (const text of [
      "",
      "1.2.3",
      "01",
      "+1",
      ".5",
      "NaN",
      "1e400",
      "[1e400]",
      "True",
      "<no value>",
      "v1",
    ]) {
      assert.equal(jsonKind(text), "text", text);
    }
    assert.equal(jsonKind(`${"[".repeat(10000)}${"]".repeat(10000)}`), "array");
    assert.equal(jsonKind(`${"[".repeat(10001)}${"]".repeat(10001)}`), "text");
    assert.equal(jsonKind('["[[[", 1]'), "array", "brackets inside strings do not nest");
  });
});

describe("outputJsonKinds: what a template's output can decode to", () => {
  const kinds = (text: string, values: Record<string, PrintedValue>) => {
    const result = parseTemplate(text);
    assert.ok(result.ok);
    return [
      ...outputJsonKinds(
        result.template.analysis.output,
        (path) => values[path.join(".")] ?? { kind: "any" },
      ),
    ].sort();
  };

  it("is certain where every value gives the same kind", () => {
    assert.deepEqual(kinds("{{.config.n}}", { "config.n": { kind: "integer" } }), ["number"]);
    assert.deepEqual(kinds(" {{- .config.n -}} ", { "config.n": { kind: "integer" } }), ["number"]);
    assert.deepEqual(kinds("{{.config.b}}", { "config.b": { kind: "boolean" } }), ["boolean"]);
    assert.deepEqual(kinds("v{{.config.n}}", { "config.n": { kind: "integer" } }), ["text"]);
    assert.deepEqual(kinds("{{.config.x}}", { "config.x": { kind: "text", text: "<no value>" } }), ["text"]);
    assert.deepEqual(kinds('{{if eq .config.env "p"}}14.0.0{{else}}13.0.0{{end}}', {}), ["text"]);
    assert.deepEqual(kinds("{{if gt .config.n 1}}true{{else}}false{{end}}", {}), ["boolean"]);
  });

  it("says where it may go either way", () => {
    assert.deepEqual(kinds("{{.config.n}}{{.config.n}}", { "config.n": { kind: "integer" } }), [
      "number",
      "text",
    ]);
    assert.deepEqual(kinds("1e{{.config.n}}", { "config.n": { kind: "integer" } }), ["number", "text"]);
    assert.deepEqual(kinds("0{{.config.n}}", { "config.n": { kind: "integer" } }), ["text"]);
    assert.deepEqual(kinds("{{.config.s}}", {}).length, 7);
    assert.deepEqual(kinds('"{{.config.s}}', {}), ["string", "text"]);
    assert.deepEqual(kinds("{{.config.s}}x", {}).length, 7, "only the start of the text narrows it");
    assert.deepEqual(kinds("x{{printf .a}}", {}), ["text"]);
  });
});
