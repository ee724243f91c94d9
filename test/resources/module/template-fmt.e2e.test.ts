import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { dump } from "js-yaml";
import type { Module } from "../../../src/generated/module.js";
import { corpusFound, corpusPath } from "../../support/corpus.js";
import { type ModuleAnswer, useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";
import { helmModule } from "../../support/modules.js";
import { admissionReview } from "../../support/reviews.js";
import { buildCommand } from "../../support/serve-process.js";

type Helm = NonNullable<Module["spec"]["helm"]>;

/**
 * printf directives of Go's fmt that the executor once did not model (issue 43: `%*d`, `%[2]d`, `%#v`,
 * `% d`, `%c`), rendering into a text field, outputs[].name: each renders a JSON number, and the
 * operator's render fails decoding it into the string field. The operator's own steps (the Go oracle)
 * say so; the live server and the built CLI deny each with module.template-json-type. Before, the
 * executor threw Unsupported on each and only warned "may render as a JSON number".
 */
const cases: [string, string][] = [
  ["%*d", '{{ printf "%*d" 5 .config.replicas }}'],
  ["%[2]d", '{{ printf "%[2]d" .config.host .config.replicas }}'],
  ["%#v", '{{ printf "%#v" .config.replicas }}'],
  ["% d", '{{ printf "% d" .config.replicas }}'],
  ["%c of 51", '{{ printf "%c" 51 }}'],
  ["%x of a string of digits", '{{ printf "%x" "\\x12" }}'],
  ["%.0f", '{{ printf "%.0f" 2.5 }}'],
];

function withOutputName(text: string): Module {
  const module = helmModule();
  (module.spec.helm as Helm).outputs = [{ name: text, value: "x" }];
  return module;
}

describe("Go's fmt in a template rendering into a text field (issue 43)", () => {
  const oracle = useGoOracle();
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("the operator's render fails on each (the Go oracle)", { skip: withoutGo }, async () => {
    for (const [name, text] of cases) {
      // Alongside the operator's own CRD (its defaults: editable items) when the corpus has it.
      const crd = corpusFound
        ? { operatorCrd: corpusPath("forkspacer", "crds", "batch.forkspacer.com_modules.yaml") }
        : {};
      const answer = (await oracle.current.ask("module", {
        module: withOutputName(text),
        ...crd,
      })) as ModuleAnswer;
      assert.equal(answer.stage, "render", `${name}: ${JSON.stringify(answer)}`);
    }
  });

  it("the live server denies each as the operator's re-typing fails", async () => {
    for (const [name, text] of cases) {
      const reply = await server.post(
        "/validate-batch-forkspacer-com-v1-module",
        admissionReview({ operation: "CREATE", object: withOutputName(text) }),
      );
      const { allowed, status } = reply.json.response;
      assert.equal(allowed, false, `${name}: admitted`);
      assert.match(
        status.message,
        /a JSON number, which the operator cannot decode into this string field/,
        name,
      );
      assert.match(status.message, /spec\.helm\.outputs\[0\]\.name/, name);
    }
  });

  it("the built CLI's validate denies each, naming the rule (npm run compile first)", () => {
    const dir = mkdtempSync(join(tmpdir(), "template-fmt-"));
    const file = join(dir, "modules.yaml");
    writeFileSync(file, cases.map(([, text]) => dump(withOutputName(text))).join("---\n"));
    let output = "";
    let status = 0;
    try {
      output = execFileSync(process.execPath, [buildCommand(), "validate", "-f", file, "-o", "json"], {
        encoding: "utf8",
      });
    } catch (e) {
      const failed = e as { status: number; stdout: string };
      status = failed.status;
      output = failed.stdout;
    }
    assert.equal(status, 1, output);
    const denied = output.match(/\/module\.template-json-type"/g) ?? [];
    assert.equal(denied.length, cases.length, output);
  });
});
