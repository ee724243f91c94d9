import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { manifestDir, validateCli } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { admissionReview } from "../support/reviews.js";

const module = (config: string, values: string) => `apiVersion: batch.forkspacer.com/v1
kind: Module
metadata: { name: m, namespace: default }
config:
${config}
spec:
  helm:
    releaseName: m
    namespace: default
    chart: { repo: { url: "https://charts.example.com", chart: c, version: "1.0.0" } }
  workspace: { name: w }
  config:
${values}
`;

describe("validate: prototype keys are keys like any other (issue 15)", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  const cases = [
    {
      // Undeclared keys only warn (the operator ignores them): the keys are declared, not editable.
      name: "values for non-editable __proto__ and constructor items",
      text: module(
        "  - { name: P, alias: __proto__, boolean: { editable: false } }\n  - { name: C, alias: constructor, integer: { editable: false } }",
        "    __proto__: true\n    constructor: 1",
      ),
      fields: ["spec.config.__proto__", "spec.config.constructor"],
    },
    {
      name: "a __proto__ alias with a value of the wrong type",
      text: module("  - { name: P, alias: __proto__, boolean: {} }", '    __proto__: "yes"'),
      fields: ["spec.config.__proto__"],
    },
  ];
  for (const { name, text, fields } of cases) {
    it(`denies ${name}, offline as the server does`, async () => {
      const dir = manifestDir({ "m.yaml": text });
      const run = await validateCli(["-f", join(dir, "m.yaml"), "-o", "json"]);
      assert.equal(run.status, 1, run.stdout);
      const found = (JSON.parse(run.stdout).findings as { message: string; severity: string }[])
        .filter((finding) => finding.severity === "error")
        .map((finding) => finding.message.slice(0, finding.message.indexOf(": ")));
      assert.deepEqual(found, fields);
      // The same object, as the API server would send it (JSON keeps __proto__ as a key).
      const { load } = await import("js-yaml");
      const object = load(text);
      const reply = await server.post(
        "/validate-batch-forkspacer-com-v1-module",
        admissionReview({ operation: "CREATE", object }),
      );
      assert.deepEqual(
        reply.json.response.status.details.causes.map((cause: { field: string }) => cause.field),
        fields,
      );
    });
  }
});

describe("validate: hostile files (issue 15)", () => {
  const header = `apiVersion: batch.forkspacer.com/v1
kind: Module
metadata: { name: lol, namespace: default }
spec:
  helm:
    releaseName: lol
    namespace: default
    chart: { repo: { url: "https://charts.example.com", chart: c, version: "1.0.0" } }
    values:
      - raw:
`;

  it("refuses a 9-level billion-laughs file at once, with its line, and goes on to the next object", async () => {
    const levels = [`          a0: &a0 [${Array(10).fill('"lol"').join(",")}]`];
    for (let i = 1; i < 10; i++)
      levels.push(
        `          a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(",")}]`,
      );
    const fine = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: other }\n";
    const dir = manifestDir({
      "lol.yaml": `${header}${levels.join("\n")}\n  workspace: { name: w }\n---\n${fine}`,
    });
    const run = await validateCli(["-f", join(dir, "lol.yaml"), "--strict"]);
    assert.equal(run.status, 1);
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.slice(line.indexOf("lol.yaml:")));
    assert.match(
      lines[0] ?? "",
      /^lol\.yaml:1: Module default\/lol: Request entity too large: limit is 3145728 \(the API server.s answer; the object is about \d{11} bytes as JSON, YAML aliases expanded\)/,
    );
    // The object after it is still read and judged.
    assert.match(lines[1] ?? "", /^lol\.yaml:23: ConfigMap other: no schema/);
  });

  it("refuses an object nested over 1,000 levels through aliases, naming the field and its line", async () => {
    // Each anchor one level deeper than the last: 1,100 levels, though no line nests more than one.
    const chain = ["          d0: &d0 [1]"];
    for (let i = 1; i <= 1100; i++) chain.push(`          d${i}: &d${i} [*d${i - 1}]`);
    const dir = manifestDir({ "deep.yaml": `${header}${chain.join("\n")}\n  workspace: { name: w }\n` });
    const run = await validateCli(["-f", join(dir, "deep.yaml")]);
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /deep\.yaml:\d+: Module default\/lol: spec\.helm\.values\[0\]\.raw\.d\d+\[0\]: nested more than 1000 levels deep/,
    );
  });

  it("names the file and line of a document nested too deeply for the YAML reader, exit 2, at once", async () => {
    const dir = manifestDir({
      "deep.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\nkind: X\nspec: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`,
    });
    const run = await validateCli(["-f", join(dir, "deep.yaml")]);
    assert.equal(run.status, 2);
    assert.match(run.stdout, /deep\.yaml:6: nested too deeply: the YAML reader stops at 100 levels/);
    // The ConfigMap of the file's first document is not read either: the file is one unparsable input.
    assert.match(run.stdout, /1 input unreadable/);
  });
});
