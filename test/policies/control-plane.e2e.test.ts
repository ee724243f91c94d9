import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { load as loadYaml } from "js-yaml";
import { limits } from "../../src/base/limits.js";
import type { GeneratedPolicy } from "../../src/codegen/native-policies.js";
import { useControlPlane } from "../support/control-plane.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";
import { policyCases } from "../support/policy-cases.js";
import { generatedCases } from "../support/policy-generators.js";
import { nativeRules } from "../support/policy-parity.js";
import {
  api,
  apply,
  applyCrds,
  applyPolicies,
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
    await applyCrds(plane(), ourCrds());
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    await applyPolicies(plane(), policyObjects(validating, "Warn"));
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

  it("refuses a Module of over 3 MiB of JSON before any admission (413), which the webhook's object-size denial follows, and etcd stores none over 1.5 MiB", async () => {
    const path = `/apis/batch.forkspacer.com/v1/namespaces/${namespace}/modules`;
    const large = (name: string, blob: number) => {
      const module = helmModule();
      module.metadata = { name, namespace };
      if (module.spec.helm) module.spec.helm.values = [{ raw: { blob: "x".repeat(blob) } }];
      return module;
    };
    const over = await plane().send("POST", path, large("over-the-limit", limits.objectBytes));
    assert.equal(over.status, 413, over.body.slice(0, 300));
    assert.match(over.body, new RegExp(`limit is ${limits.objectBytes}`));
    const within = await plane().send("POST", path, large("within-the-limit", 2_000_000));
    assert.match(within.body, /request is too large/, within.body.slice(0, 300));
  });
});

/** A Module with `count` config items, each broken (a repeated alias, min above max, a value over max). */
function longConfig(name: string, count: number) {
  const module = helmModule();
  module.metadata = { name, namespace };
  module.config = Array.from({ length: count }, (_, i) => ({
    name: `Item ${i}`,
    alias: i % 2 === 0 ? `a${i}` : "repeated",
    integer: { default: 9, min: 5, max: 1 },
  }));
  module.spec.config = Object.fromEntries(Array.from({ length: count / 2 }, (_, i) => [`a${2 * i}`, 99]));
  return module;
}

describe("native policies within the API server's runtime cost limit", { skip: withoutGo }, () => {
  const plane = useControlPlane();
  const collection = `/apis/batch.forkspacer.com/v1/namespaces/${namespace}/modules`;
  // The policies over a long list: each bound Deny with failurePolicy Fail (an evaluation error denies,
  // saying so) and only for Modules labelled with its rule, so that each answer is that policy's alone.
  const long = validating.filter(
    (policy) => policy.kind === "module" && policy.spec.failurePolicy === "Ignore",
  );
  const probing = policyObjects(long, "Deny", "Fail").map((object) => {
    const typed = object as { kind: string; metadata: { name: string }; spec: Record<string, unknown> };
    if (typed.kind !== "ValidatingAdmissionPolicyBinding") return object;
    const rule = typed.metadata.name.slice(typed.metadata.name.indexOf(".") + 1);
    return {
      ...typed,
      spec: { ...typed.spec, matchResources: { objectSelector: { matchLabels: { probe: rule } } } },
    };
  });
  const labelled = (module: ReturnType<typeof longConfig>, rule: string) => ({
    ...module,
    metadata: { ...module.metadata, labels: { probe: rule } },
  });
  const answerOf = (answer: { status: number; body: Record<string, unknown> }) =>
    answer.status < 300 ? "admitted" : String(answer.body.message);

  it("judge a config of 64 items, every one broken, on CREATE and UPDATE, without running out", async () => {
    await applyCrds(plane(), ourCrds());
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    await apply(plane(), probing);
    // The API server picks the policies up asynchronously: one that certainly denies says they are in.
    await eventually(
      "the probing policies are in force",
      async () =>
        /denied request/.test(
          answerOf(
            await api(
              plane(),
              "POST",
              `${collection}?dryRun=All`,
              labelled(longConfig("p", 4), "module.config-duplicate-alias"),
            ),
          ),
        ),
      60_000,
    );
    const stored = await api(plane(), "POST", collection, longConfig("long", 64));
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const changed = structuredClone(stored.body) as unknown as ReturnType<typeof longConfig>;
    const config = changed.config ?? [];
    config[0] = { ...(config[0] as (typeof config)[number]), name: "Changed" };
    config.push({ name: "New", alias: "new", integer: {} });
    const outcomes: string[] = [];
    for (const policy of long) {
      const create = await api(
        plane(),
        "POST",
        `${collection}?dryRun=All`,
        labelled(longConfig("long-create", 64), policy.rule),
      );
      const update = await api(
        plane(),
        "PUT",
        `${collection}/long?dryRun=All`,
        labelled(changed, policy.rule),
      );
      for (const answer of [answerOf(create), answerOf(update)])
        if (/resulted in error|cancelled/.test(answer))
          outcomes.push(`${policy.rule}: ${answer.slice(0, 300)}`);
    }
    assert.deepEqual(outcomes, []);
  });

  it("a longer config may run out: as the chart installs them (failurePolicy Ignore), those policies admit", async () => {
    // The bound is real: with Fail, 300 distinct aliases exhaust the cost limit of their comparison.
    const distinct = longConfig("distinct", 300);
    distinct.config = (distinct.config ?? []).map((item, i) => ({ ...item, alias: `a${i}` }));
    const exhausted = answerOf(
      await api(
        plane(),
        "POST",
        `${collection}?dryRun=All`,
        labelled(distinct, "module.config-duplicate-alias"),
      ),
    );
    assert.match(exhausted, /resulted in error|cancelled/);
    const ignoring = probing.map((object) => {
      const typed = object as { kind: string; spec: Record<string, unknown> };
      return typed.kind === "ValidatingAdmissionPolicy"
        ? { ...typed, spec: { ...typed.spec, failurePolicy: "Ignore" } }
        : object;
    });
    await apply(plane(), ignoring);
    const failed: string[] = [];
    for (const policy of long) {
      let answer = "";
      // Until the policy is in force with Ignore: an error it still gives would be the Fail one's.
      await eventually(
        `${policy.rule} admits on its error`,
        async () => {
          answer = answerOf(
            await api(
              plane(),
              "POST",
              `${collection}?dryRun=All`,
              labelled(longConfig("longer", 300), policy.rule),
            ),
          );
          return !/resulted in error|cancelled/.test(answer);
        },
        30_000,
      ).catch(() => failed.push(`${policy.rule}: ${answer.slice(0, 300)}`));
    }
    assert.deepEqual(failed, []);
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
    await applyCrds(plane(), theirs);
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    const forkspacer = (policy: GeneratedPolicy) => policy.kind === "module" || policy.kind === "workspace";
    await applyPolicies(plane(), policyObjects(validating.filter(forkspacer), "Warn"));
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
