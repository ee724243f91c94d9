import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { dump } from "js-yaml";
import type { Module } from "../../../src/generated/module.js";
import { corpusFound, corpusPath } from "../../support/corpus.js";
import { describeDisagreements, Random } from "../../support/differential/random.js";
import {
  generateTemplateDataModule,
  templateDataDifferential,
} from "../../support/differential/template-data.js";
import { type ModuleAnswer, useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";
import { helmModule } from "../../support/modules.js";
import { admissionReview } from "../../support/reviews.js";
import { buildCommand } from "../../support/serve-process.js";

type Helm = NonNullable<Module["spec"]["helm"]>;

/**
 * Issue 43, templates over undeclared keys. The operator's template data is GetValidatedConfig's
 * output (forkspacer/forkspacer v0.1.24 api/v1/module_types.go:744-792): only the aliases config[]
 * declares. A key set in spec.config and declared nowhere is not in it, whatever the probe
 * said: `{{ .config.ns }}` renders `<no value>`, and a namespace of that name cannot be installed
 * into. The oracle runs the operator's own steps; the project's data must print the same.
 */
function namespaceFrom(declareNs: boolean): Module {
  const module = helmModule();
  (module.spec.helm as Helm).namespace = "{{ .config.ns }}";
  module.spec.config = { ...module.spec.config, ns: "team-a" };
  if (declareNs)
    module.config?.push({ name: "Namespace", alias: "ns", string: { editable: true, default: "apps" } });
  return module;
}

const operatorCrd = () =>
  corpusFound ? { operatorCrd: corpusPath("forkspacer", "crds", "batch.forkspacer.com_modules.yaml") } : {};

describe("the template data as the operator builds it: undeclared keys, nested maps, defaults", () => {
  const oracle = useGoOracle();
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("300 generated Modules: `.config` prints the same (%#v, its keys' types, undeclared and nested reads) as the operator's", {
    skip: withoutGo,
  }, async () => {
    const random = new Random(43);
    const modules = Array.from({ length: 300 }, () => generateTemplateDataModule(random));
    const run = await templateDataDifferential(oracle.current, modules);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
    assert.ok(run.cases - run.refused >= 200, `only ${run.cases - run.refused} rendered`);
  });

  it("an undeclared key renders <no value> in the operator: the namespace it makes fails the install", {
    skip: withoutGo,
  }, async () => {
    const undeclared = (await oracle.current.ask("module", {
      module: namespaceFrom(false),
      ...operatorCrd(),
    })) as ModuleAnswer;
    assert.equal(undeclared.stage, "install", JSON.stringify(undeclared));
    assert.match(undeclared.error ?? "", /<no value>/);
    const declared = (await oracle.current.ask("module", {
      module: namespaceFrom(true),
      ...operatorCrd(),
    })) as ModuleAnswer;
    assert.equal(declared.stage, undefined, JSON.stringify(declared));
  });

  it("the live server denies the undeclared key's namespace (module.helm-namespace) and admits the declared one", async () => {
    const judge = async (module: Module) =>
      (
        await server.post(
          "/validate-batch-forkspacer-com-v1-module",
          admissionReview({ operation: "CREATE", object: module }),
        )
      ).json.response;
    const undeclared = await judge(namespaceFrom(false));
    assert.equal(undeclared.allowed, false);
    assert.match(undeclared.status.message, /spec\.helm\.namespace.*<no value>/);
    assert.equal((await judge(namespaceFrom(true))).allowed, true);
  });

  it("the built CLI's validate does the same (npm run compile first)", () => {
    const dir = mkdtempSync(join(tmpdir(), "template-data-"));
    const run = (module: Module) => {
      const file = join(dir, "module.yaml");
      writeFileSync(file, dump(module));
      try {
        return {
          status: 0,
          output: execFileSync(process.execPath, [buildCommand(), "validate", "-f", file], {
            encoding: "utf8",
          }),
        };
      } catch (e) {
        const failed = e as { status: number; stdout: string };
        return { status: failed.status, output: failed.stdout };
      }
    };
    const undeclared = run(namespaceFrom(false));
    assert.equal(undeclared.status, 1, undeclared.output);
    assert.match(
      undeclared.output,
      /spec\.helm\.namespace: Invalid value: "\{\{ \.config\.ns \}\}": renders "<no value>"/,
    );
    const declared = run(namespaceFrom(true));
    assert.equal(declared.status, 0, declared.output);
  });
});
