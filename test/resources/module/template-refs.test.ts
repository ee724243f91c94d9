import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { templateConfigRefs } from "../../../src/resources/module/template-refs.js";

/** The pattern the linear scan replaces: the reference for what it must find. */
const pattern = /\{\{[^}]*?\.config\.([A-Za-z_][A-Za-z0-9_]*)/g;
const byPattern = (text: string) => [...text.matchAll(pattern)].map((match) => match[1]);

describe("template .config references", () => {
  it("finds what the pattern finds, on text made of the pieces that matter", () => {
    const piece = fc.constantFrom("{{", "{", "}}", "}", ".config.", ".config", "x", "_a1", "9", " ", ".");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        assert.deepEqual(templateConfigRefs(text), byPattern(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("reads templates as a chart writes them", () => {
    const text =
      "{{ .config.replicas }} and {{ if .config.tls_on }}{{ .config.Host | quote }}{{ end }} .config.no";
    assert.deepEqual(templateConfigRefs(text), ["replicas", "tls_on", "Host"]);
  });

  it("answers a megabyte of `{` and one of `{{.config.` without a match", () => {
    assert.deepEqual(templateConfigRefs("{".repeat(1 << 20)), []);
    assert.deepEqual(templateConfigRefs("{{.config.".repeat(100_000)), []);
  });
});
