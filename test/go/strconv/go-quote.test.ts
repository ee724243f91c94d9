import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goQuote } from "../../../src/go/strconv/go-strings.js";

// Expected texts are Go 1.26's fmt %q of the same strings after encoding/json decoded them (a lone
// surrogate becomes U+FFFD there), checked with `go run` when this test was written.
describe("goQuote (fmt's %q), the one quoting of Go strings for templates and field errors", () => {
  it("quotes as Go does", () => {
    const cases: [string, string][] = [
      ["plain", '"plain"'],
      ['say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'],
      ["\u0007\b\f\n\r\t\u000b", '"\\a\\b\\f\\n\\r\\t\\v"'],
      ["\u0000\u001f\u007f", '"\\x00\\x1f\\x7f"'],
      ["é中😀", '"é中😀"'],
      ["\u00a0\u200b\u2028", '"\\u00a0\\u200b\\u2028"'],
      ["\u{e0001}", '"\\U000e0001"'],
      ["a\ud800b", '"a\ufffdb"'],
    ];
    for (const [text, quoted] of cases) assert.equal(goQuote(text), quoted, JSON.stringify(text));
  });

  it("quotes the first N characters with a precision (%.Nq)", () => {
    assert.equal(goQuote("abcdef", 3), '"abc"');
    assert.equal(goQuote("é中😀x", 3), '"é中😀"');
  });
});
