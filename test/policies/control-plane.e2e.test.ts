import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { load as loadYaml } from "js-yaml";
import type { GeneratedPolicy } from "../../src/codegen/native-policies.js";
import { useControlPlane } from "../support/control-plane.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";
import { policyCases } from "../support/policy-cases.js";
import { generatedCases } from "../support/policy-generators.js";
import { nativeRules } from "../support/policy-parity.js";
import {
  apply,
  chartPolicies,
  compareAll,
  namespace,
  ourCrds,
  policyObjects,
  typeCheckWarnings,
} from "../support/policy-server.js";

const { validating } = chartPolicies();

/** A sample of generated requests, the same for every run of the suite (a seed), of every kind. */
const generatedSample = (count: number) => fc.sample(generatedCases(), { numRuns: count, seed: 35 });

describe("native policies on a real API server (kube-apiserver 1.37.2)", { skip: withoutGo }, () => {
  const plane = useControlPlane();

  it("accepts our CRDs (their CEL rules within its cost limits) and every generated policy, with no type-check warnings", async () => {
    await apply(plane(), ourCrds());
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    await apply(plane(), policyObjects(validating, "Warn"));
    const warnings = typeCheckWarnings(plane());
    assert.equal(Object.keys(warnings).length, validating.length, "every policy is type checked");
    assert.deepEqual(
      Object.entries(warnings).filter(([, found]) => (found ?? []).length > 0),
      [],
    );
  });

  it("with our CRDs, agrees with the webhook rule by rule on every case table and corpus object, CREATE and UPDATE", async () => {
    // Our CRDs carry the `crd` rules; every policy is bound Warn (each failed validation shows), those
    // standing for the CRD's rules too (they run only where the CRD's own rules passed).
    const result = await compareAll(plane(), [...policyCases(), ...generatedSample(150)], nativeRules);
    console.log(
      `our CRDs: ${result.compared} requests compared (${result.skipped} skipped: refused by the schema, no name, or an old object the server refuses); rules found: ${[...result.fired].map(([r, n]) => `${r}×${n}`).join(", ")}`,
    );
    assert.deepEqual(result.report, []);
  });
});

describe("native policies where the CRD is the Forkspacer operator's (alongside)", {
  skip: withoutGo || withoutCorpus,
}, () => {
  const plane = useControlPlane();

  it("the policies standing for our CRD's rules agree with the webhook, rule by rule", async () => {
    const theirs = ["batch.forkspacer.com_modules.yaml", "batch.forkspacer.com_workspaces.yaml"].map((file) =>
      loadYaml(readFileSync(corpusPath("forkspacer/crds", file), "utf8")),
    );
    await apply(plane(), theirs);
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    const forkspacer = (policy: GeneratedPolicy) => policy.kind === "module" || policy.kind === "workspace";
    await apply(plane(), policyObjects(validating.filter(forkspacer), "Warn"));
    const warnings = typeCheckWarnings(plane());
    assert.deepEqual(
      Object.entries(warnings).filter(([, found]) => (found ?? []).length > 0),
      [],
      "the policies type-check against the operator's CRDs too",
    );
    const forkspacerCases = [...policyCases(), ...generatedSample(150)].filter((c) =>
      ["Module", "Workspace"].includes(String(c.object.kind)),
    );
    // Every native rule of these kinds is a policy here: the operator's CRD has none of ours.
    const result = await compareAll(plane(), forkspacerCases, (kind) =>
      nativeRules(kind).map((rule) =>
        rule.native.by === "crd"
          ? { ...rule, native: { by: "policy" as const, policy: { validations: [] } } }
          : rule,
      ),
    );
    console.log(`the operator's CRDs: ${result.compared} requests compared (${result.skipped} skipped)`);
    assert.deepEqual(result.report, []);
  });
});
