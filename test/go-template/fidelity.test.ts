import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { jsonKind, outputJsonKinds, type PrintedValue, parseTemplate } from "../../src/go-template/index.js";
import { fidelityCases } from "./fidelity-cases.js";

interface GoResult {
  ok: boolean;
  error?: string;
  templates?: string[];
  output?: string;
  execError?: string;
  json?: string;
}

const expected: { goVersion: string; results: Record<string, GoResult> } = JSON.parse(
  readFileSync(new URL("./fidelity-expected.json", import.meta.url), "utf8"),
);

/** What printing the data at `path` gives, as Go prints the JSON-decoded values the oracle used. */
function printedFrom(data: Record<string, unknown>): (path: string[]) => PrintedValue {
  return (path) => {
    let value: unknown = data;
    for (const key of path) {
      if (typeof value !== "object" || value === null || !(key in value))
        return { kind: "text", text: "<no value>" };
      value = (value as Record<string, unknown>)[key];
    }
    return { kind: "text", text: String(value) };
  };
}

describe("go-template fidelity table (expected verdicts from Go's text/template)", () => {
  it("has one expected result per case, and at least 150 cases", () => {
    assert.deepEqual(Object.keys(expected.results).sort(), fidelityCases.map((c) => c.name).sort());
    assert.ok(fidelityCases.length >= 150);
  });

  for (const c of fidelityCases) {
    it(c.name, () => {
      const go = expected.results[c.name] as GoResult;
      const want = c.go124 ? { ok: c.go124.ok, error: c.go124.error } : go;
      const got = parseTemplate(c.text, { functions: ["randBase62", ...(c.funcs ?? [])] });
      if (!want.ok) {
        assert.equal(got.ok, false, `Go refuses ${JSON.stringify(c.text)}: ${want.error}`);
        assert.equal(got.ok ? "" : got.error.message, want.error);
        return;
      }
      assert.ok(got.ok, `Go accepts ${JSON.stringify(c.text)}; we said: ${got.ok ? "" : got.error.message}`);
      if (!c.go124) assert.deepEqual([...got.template.trees.keys()].sort(), go.templates);
      if (go.output === undefined || c.data === undefined) return;
      assert.equal(jsonKind(go.output), go.json, "JSON re-typing of Go's output");
      const { output } = got.template.analysis;
      const kinds = outputJsonKinds(output, printedFrom(c.data));
      assert.ok(kinds.has(go.json as never), `predicted ${[...kinds]} for Go's ${go.json}`);
      if (output.every((p) => p.kind === "text" || p.kind === "field")) {
        const resolve = printedFrom(c.data);
        const text = output
          .map((p) =>
            p.kind === "text" ? p.text : (resolve(p.kind === "field" ? p.path : []) as { text: string }).text,
          )
          .join("");
        assert.equal(text, go.output, "statically predicted output");
        assert.deepEqual([...kinds], [go.json]);
      }
    });
  }
});
