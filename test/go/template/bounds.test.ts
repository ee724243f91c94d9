import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { maxNestingDepth, parseTemplate } from "../../../src/go/template/index.js";

const message = (text: string) => {
  const result = parseTemplate(text);
  return result.ok ? "ok" : result.error.message;
};

describe("go-template bounded work", () => {
  it("parses nesting up to the limit and refuses deeper nesting with Go's message, without overflowing the stack", () => {
    const parens = (n: number) => `{{${"(".repeat(n)}1${")".repeat(n)}}}`;
    const ifs = (n: number) => `${"{{if .a}}".repeat(n)}x${"{{end}}".repeat(n)}`;
    const elseIfs = (n: number) => `{{if .a}}${"{{else if .b}}".repeat(n - 1)}{{end}}`;
    const blocks = (n: number) =>
      `${Array.from({ length: n }, (_, i) => `{{block "b${i}" .}}`).join("")}x${"{{end}}".repeat(n)}`;
    for (const build of [parens, ifs, elseIfs, blocks]) {
      assert.equal(message(build(maxNestingDepth)), "ok");
      assert.equal(message(build(maxNestingDepth + 1)), "template: :1: max expression depth exceeded");
      assert.equal(message(build(100_000)), "template: :1: max expression depth exceeded");
    }
    assert.equal(message(`{{${"(".repeat(200_000)}`), "template: :1: max expression depth exceeded");
  });

  it("handles long inputs: many actions, variables in scope, long texts and unterminated tokens", () => {
    const declarations = Array.from({ length: 20_000 }, (_, i) => `{{$v${i} := .a}}`).join("");
    const uses = Array.from({ length: 20_000 }, (_, i) => `{{$v${i}.b}}`).join("");
    const big = parseTemplate(declarations + uses);
    assert.ok(big.ok);
    assert.equal(big.template.analysis.fields.length, 40_000);
    assert.equal(message("x".repeat(1_000_000)), "ok");
    assert.equal(message(`{{"${"a".repeat(1_000_000)}`), "template: :1: unterminated quoted string");
    assert.equal(message(`{{/*${"*".repeat(1_000_000)}`), "template: :1: unclosed comment");
    assert.equal(message(`${"\n".repeat(100_000)}{{sub}}`), 'template: :100001: function "sub" not defined');
  });

  it("answers every input with a verdict, never an exception", () => {
    const alphabet = [..."{}-. \n$x:=|()'\"`\\01eEx_+,/*é\u0000\ud800"];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let i = 0; i < 5000; i++) {
      let text = "{{";
      for (let n = Math.floor(random() * 12); n > 0; n--)
        text += alphabet[Math.floor(random() * alphabet.length)];
      const result = parseTemplate(text);
      assert.ok(result.ok || result.error.message.startsWith("template: :"), text);
    }
  });
});
