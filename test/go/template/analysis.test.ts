import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ParsedTemplate, parseTemplate } from "../../../src/go/template/index.js";

function parsed(text: string): ParsedTemplate {
  const result = parseTemplate(text, { functions: ["randBase62"] });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.template;
}
const fields = (text: string) => parsed(text).analysis.fields.map((f) => f.path.join("."));

describe("go-template analysis: field chains from the root data", () => {
  it("finds plain, $-rooted and chained field reads, with their positions", () => {
    const text = '{{.config.replicas}}-{{ $.releaseName }} {{ (index .config "a").b }}';
    const { analysis } = parsed(text);
    assert.deepEqual(
      analysis.fields.map((f) => [f.path.join("."), f.pos]),
      [
        ["config.replicas", text.indexOf(".config.replicas")],
        ["releaseName", text.indexOf("$.releaseName")],
        ["config", text.indexOf(".config ")],
      ],
    );
    assert.equal(analysis.unresolvedFields, 1, "the .b of index's result is not a chain of the data");
  });

  it("follows with, declarations and variables", () => {
    assert.deepEqual(fields("{{with .config}}{{.replicas}}{{else}}{{.namespace}}{{end}}"), [
      "config",
      "config.replicas",
      "namespace",
    ]);
    assert.deepEqual(fields("{{$c := .config}}{{$c.version}}"), ["config", "config.version"]);
    assert.deepEqual(fields("{{with $c := .config}}{{$c.a}}{{.b}}{{end}}"), [
      "config",
      "config.a",
      "config.b",
    ]);
    assert.deepEqual(fields("{{if $v := .config.v}}{{$v}}{{end}}"), ["config.v"]);
  });

  it("does not place reads it cannot know: range elements, define bodies, reassigned or computed variables", () => {
    const range = parsed("{{range .config.items}}{{.name}}{{end}}").analysis;
    assert.deepEqual(
      range.fields.map((f) => f.path.join(".")),
      ["config.items"],
    );
    assert.equal(range.unresolvedFields, 1);
    const called = parsed(
      '{{define "a"}}{{.x}}{{$.y}}{{end}}{{template "a" .config}}{{template "a"}}',
    ).analysis;
    assert.deepEqual(
      called.fields.map((f) => f.path.join(".")),
      ["config", "config.x", "config.y"],
    );
    assert.equal(called.unresolvedFields, 2, "the call without data");
    assert.deepEqual(called.definedTemplates, ["a"]);
    assert.deepEqual(
      called.templateCalls.map((c) => c.name),
      ["a", "a"],
    );
    const reassigned = parsed("{{$c := .config}}{{if .x}}{{$c = .other}}{{end}}{{$c.v}}").analysis;
    assert.deepEqual(
      reassigned.fields.map((f) => f.path.join(".")),
      ["config", "x", "other"],
    );
    assert.equal(reassigned.unresolvedFields, 1);
    assert.equal(parsed('{{$c := printf "%v" .config}}{{$c.v}}').analysis.unresolvedFields, 1);
  });

  it("walks templates as execution reaches them: blocks, recursion within a bound, unreached ones for calls only", () => {
    assert.deepEqual(fields('{{block "b" .config}}{{.replicas}}{{end}}'), ["config", "config.replicas"]);
    const recursive = parsed('{{define "a"}}{{.x}}{{template "a" .x}}{{end}}{{template "a" .}}').analysis;
    assert.equal(recursive.fields.length, 2 * 32);
    assert.equal(recursive.unresolvedFields, 2);
    const unreached = parseTemplate('{{define "u"}}{{.q}}{{sub .q}}{{end}}{{.a}}', { functions: ["sub"] });
    assert.ok(unreached.ok);
    assert.deepEqual(
      unreached.template.analysis.fields.map((f) => f.path.join(".")),
      ["a"],
    );
    assert.equal(unreached.template.analysis.unresolvedFields, 0);
    assert.deepEqual(
      unreached.template.analysis.functions.map((f) => f.name),
      ["sub"],
    );
  });

  it("ends a variable's scope with its block", () => {
    const { analysis } = parsed("{{$c := .a}}{{with .b}}{{$c := .c}}{{end}}{{$c.x}}");
    assert.deepEqual(analysis.fields.map((f) => f.path.join(".")).at(-1), "a.x");
  });
});

describe("go-template analysis: functions and output", () => {
  it("lists every function called, arguments and pipeline stages included", () => {
    const { analysis } = parsed(
      '{{ if gt (len .a) 1 }}{{ .b | printf "%s" | html }}{{ randBase62 8 }}{{ end }}',
    );
    assert.deepEqual(
      analysis.functions.map((f) => f.name),
      ["gt", "len", "printf", "html", "randBase62"],
    );
  });

  it("splits the output into text, printed fields, choices and dynamic parts", () => {
    assert.deepEqual(parsed('v{{.config.v}}-{{"x"}}{{true}}{{0x10}}{{$x := 1}}').analysis.output, [
      { kind: "text", text: "v" },
      { kind: "field", path: ["config", "v"] },
      { kind: "text", text: "-" },
      { kind: "text", text: "x" },
      { kind: "text", text: "true" },
      { kind: "text", text: "16" },
    ]);
    assert.deepEqual(parsed("{{if .a}}1{{else if .b}}{{.c}}{{end}}").analysis.output, [
      {
        kind: "choice",
        options: [
          [{ kind: "text", text: "1" }],
          [{ kind: "choice", options: [[{ kind: "field", path: ["c"] }], []] }],
        ],
      },
    ]);
    assert.deepEqual(parsed("{{range .a}}x{{end}}{{1.5}}{{printf .a}}{{.}}").analysis.output, [
      { kind: "dynamic" },
      { kind: "dynamic" },
      { kind: "dynamic" },
      { kind: "dynamic" },
    ]);
  });
});
