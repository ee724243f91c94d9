import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeDisagreements, Random } from "../../support/differential/random.js";
import { generateYamlDocument, yamlDifferential } from "../../support/differential/yaml.js";
import { useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { yamlScalars, yamlTable } from "./yaml-cases.js";

/**
 * src/go/yaml/dialects.ts (sigs.k8s.io/yaml, yaml.v3) and src/manifests/yaml-readings.ts (validate --yaml
 * kubectl|gitops) against the Go libraries: sigs.k8s.io/yaml v1.6.0, gopkg.in/yaml.v3 v3.0.1 and
 * kustomize's kyaml v0.20.1.
 */
describe("YAML readings: the port against Go's libraries", { skip: withoutGo }, () => {
  const oracle = useGoOracle();

  it("the case tables", async () => {
    const texts = [...yamlTable.map(([text]) => text), ...yamlScalars.map(([scalar]) => `a: ${scalar}`)];
    const run = await yamlDifferential(oracle.current, texts);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("kustomize writes an unquoted date as a timestamp; kubectl apply -f keeps the text", async () => {
    const text = "data:\n  since: 2025-01-01\n";
    const [kyaml, sigs] = await Promise.all([
      oracle.current.ask("yaml", { text, reader: "kyaml" }),
      oracle.current.ask("yaml", { text, reader: "sigs" }),
    ]);
    assert.deepEqual(kyaml, { value: { data: { since: "2025-01-01T00:00:00Z" } } });
    assert.deepEqual((sigs as { value?: unknown }).value, { data: { since: "2025-01-01" } });
  });

  it("1,000 generated documents (npm run fuzz:oracle runs more)", async () => {
    const random = new Random(33);
    const run = await yamlDifferential(
      oracle.current,
      Array.from({ length: 1000 }, () => generateYamlDocument(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
