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
      name: "undeclared __proto__ and constructor keys in spec.config",
      text: module("  - { name: A, alias: a, boolean: {} }", "    __proto__: { a: 1 }\n    constructor: 1"),
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
