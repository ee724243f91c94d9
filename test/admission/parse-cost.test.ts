import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCostBytes } from "../../src/admission/parse-cost.js";

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
