import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadAll } from "js-yaml";
import { corpusPath, withoutCorpus } from "../../support/corpus.js";
import {
  generateModule,
  judgeModules,
  moduleDifferential,
  moduleDisagreement,
} from "../../support/differential/module.js";
import { generateNumber, numberDifferential } from "../../support/differential/numbers.js";
import { describeDisagreements, Random } from "../../support/differential/random.js";
import { useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { listedFailures } from "../../support/listed-failures.js";
import { denialCases } from "../../support/module-cases.js";

/**
 * The Forkspacer operator's own steps (test/oracles/forkspacer.go: its webhook's decode and CREATE
 * checks, GetValidatedConfig, RenderHelmSpec/RenderCustomSpec with Go's text/template, the install's
 * inputs) against this project's verdict, on the real Modules, the denial cases and generated Modules.
 */
describe("Forkspacer Module: the project against the operator's own steps run by Go", {
  skip: withoutGo,
}, () => {
  const oracle = useGoOracle();

  it("the real Modules of ../shared/forkspacer/manifests", { skip: withoutCorpus }, async () => {
    const dir = corpusPath("forkspacer", "manifests");
    const modules = readdirSync(dir)
      .filter((file) => file.endsWith(".yaml"))
      .flatMap((file) => loadAll(readFileSync(join(dir, file), "utf8")))
      .filter((doc) => (doc as { kind?: string } | null)?.kind === "Module");
    assert.ok(modules.length >= 28, `${modules.length} Modules`);
    const run = await moduleDifferential(oracle.current, modules);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("every CREATE denial case is a failure of the operator's or a rule declared stricter", async () => {
    const modules = denialCases.filter((c) => c.operation === "CREATE").map((c) => c.object);
    const run = await moduleDifferential(oracle.current, modules);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  for (const { name, module, stage } of listedFailures) {
    it(`the operator fails, and the project denies: ${name}`, async () => {
      const [judged] = await judgeModules(oracle.current, [module]);
      assert.ok(judged);
      // The API server refuses first with the operator's CRD where its schema already does.
      assert.match(
        String((judged.go as { stage?: string }).stage),
        new RegExp(`^(?:${stage})$`),
        JSON.stringify(judged.go),
      );
      assert.equal(judged.ours.allowed, false, JSON.stringify(judged.ours.warnings));
      assert.equal(moduleDisagreement(module, judged), undefined);
    });
  }

  it("2,000 JSON numbers: Go's float64 and int(v) of them, and the int fields a Module's config can hold", async () => {
    const random = new Random(33);
    const run = await numberDifferential(
      oracle.current,
      Array.from({ length: 2000 }, () => generateNumber(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("500 generated Modules (npm run fuzz:oracle runs more)", async () => {
    const random = new Random(33);
    const run = await moduleDifferential(
      oracle.current,
      Array.from({ length: 500 }, () => generateModule(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
