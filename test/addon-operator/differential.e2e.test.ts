import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutCorpus } from "../support/corpus.js";
import {
  addonValuesDifferential,
  deckhouseModules,
  generateAddonValues,
} from "../support/differential/addon-values.js";
import { celDifferential, generateCel } from "../support/differential/cel.js";
import { configMapDifferential, generateConfigMapData } from "../support/differential/configmap.js";
import { describeDisagreements, Random } from "../support/differential/random.js";
import { useGoOracle, withoutGo } from "../support/go-oracle.js";

/**
 * addon-operator's readings and checks, run by Go with its libraries (test/oracles/addon-operator:
 * Go 1.26, yaml.v3, sigs.k8s.io/yaml, go-openapi/validate v0.25.1, cel-go v0.26.0), against
 * src/addon-operator and the ConfigMap kind: ConfigMap data, deckhouse's config values and
 * x-deckhouse-validations.
 */
describe("addon-operator: the project against addon-operator's own Go", { skip: withoutGo }, () => {
  const oracle = useGoOracle();

  it("1,000 generated ConfigMap datas: refused by addon-operator exactly when the project denies them", async () => {
    const random = new Random(33);
    const run = await configMapDifferential(
      oracle.current,
      Array.from({ length: 1000 }, () => generateConfigMapData(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("every configValues case of deckhouse v1.43.1: the same verdict", { skip: withoutCorpus }, async () => {
    const inputs = deckhouseModules().flatMap((m) =>
      m.cases.map((values) => ({ dir: m.dir, key: m.key, values })),
    );
    assert.ok(inputs.length >= 200, `${inputs.length} cases`);
    const run = await addonValuesDifferential(oracle.current, inputs);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("1,000 changed deckhouse config values: the same verdict", { skip: withoutCorpus }, async () => {
    const random = new Random(33);
    const run = await addonValuesDifferential(
      oracle.current,
      Array.from({ length: 1000 }, () => generateAddonValues(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("user-authn's idTokenTTL: \"\" makes cel-go's duration() fail, and addon-operator refuses the values", async () => {
    const rules = [
      { expression: "duration(self) >= duration('1m')", message: "idTokenTTL must be at least 1m" },
    ];
    const run = await celDifferential(oracle.current, [
      { rules, self: "" },
      { rules, self: "10m" },
      { rules, self: "30s" },
    ]);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
    const answer = (await oracle.current.ask("cel", { rules, self: "" })) as { error?: string };
    assert.match(answer.error ?? "", /type conversion error/);
  });

  it("2,000 generated x-deckhouse-validations on values of every shape", async () => {
    const random = new Random(33);
    const run = await celDifferential(
      oracle.current,
      Array.from({ length: 2000 }, () => generateCel(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
