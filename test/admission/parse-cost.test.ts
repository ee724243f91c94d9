import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonNesting } from "../../src/admission/depth.js";
import { parseCostBytes, textShape } from "../../src/admission/parse-cost.js";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe("parseCostBytes: what JSON.parse of a body allocates, estimated from its bytes", () => {
  it("counts objects, lists, members and items outside strings, each as its bytes", () => {
    const text = bytes({ a: [1, {}], b: "x" });
    // {"a":[1,{}],"b":"x"}: two objects, one list, two colons, two commas.
    assert.equal(parseCostBytes(text), text.length + 2 * 56 + 32 + 4 * 16);
  });

  it("counts nothing inside strings, whatever runs of backslashes and quotes they hold", () => {
    const plain = bytes({ k: "", l: [""] });
    for (const inside of ["\\", "\\\\", '"', '\\"', '"{[,:', "{[,:\\", '\\\\\\"]', "ü{\\"]) {
      const text = bytes({ [`k${inside}`]: inside, l: [`${inside}\\`] });
      assert.equal(parseCostBytes(text) - text.length, parseCostBytes(plain) - plain.length, inside);
    }
  });
});

describe("textShape: the parse's cost and the nesting in one pass over the decoded text", () => {
  it("counts as parseCostBytes does on the bytes and jsonNesting on the text, whatever the strings and bytes", () => {
    const texts: Uint8Array[] = [];
    for (const inside of ["", "\\", '"', '\\"', '"{[,:', "{[,:\\", '\\\\\\"]', "ü{\\", "😀[", "\u0000{"])
      texts.push(bytes({ [`k${inside}`]: inside, l: [`${inside}\\`, { m: [[inside], {}] }], n: 1 }));
    // Bytes that are no UTF-8 (decoded to U+FFFD), beside and inside strings: a lead byte before a
    // quote or a bracket, a lone continuation byte, a truncated sequence at the end.
    const raw = (...parts: (string | number[])[]) =>
      Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...Buffer.from(part)] : part)));
    texts.push(
      raw('{"a":"', [0xc3], '","b":[', [0xe2, 0x82], "{}]", [0x80], ',"c":"', [0xf0, 0x9f], '"}'),
      raw('[{"x":"', [0xff, 0x22, 0x5b], '"},', [0xc3], "[[1]]]"),
      raw('{"open":["', [0xe2]),
      raw('{"a":[[{"b":"\\\\"}]],"c":', [0xed, 0xa0, 0x80], "[]}"),
    );
    for (const body of texts) {
      const text = Buffer.from(body).toString("utf8");
      const shape = textShape(text);
      assert.equal(body.length + shape.structureBytes, parseCostBytes(body), text);
      assert.equal(shape.nesting, jsonNesting(text), text);
    }
  });
});
