import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { load as loadYaml } from "js-yaml";
import type { RuleDeclaration } from "../../src/admission/rule-catalogue.js";
import type { GeneratedPolicy } from "../../src/codegen/native-policies.js";
import { kindOf, type OfflineKind, offlineKinds } from "../../src/offline/kinds.js";
import { type ControlPlane, useControlPlane } from "../support/control-plane.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";
import { type PolicyCase, policyCases } from "../support/policy-cases.js";
import { generatedCases } from "../support/policy-generators.js";
import {
  decodedCase,
  disagreements,
  nativeRules,
  type RuleFindings,
  webhookFindings,
} from "../support/policy-parity.js";
import {
  api,
  apply,
  chartPolicies,
  policyObjects,
  serverFindings,
  typeCheckWarnings,
} from "../support/policy-server.js";

const root = new URL("../..", import.meta.url).pathname;
const kinds = offlineKinds();
const namespace = "parity";
const { validating } = chartPolicies();

/** The generated CRDs of the chart (files/crds/), as objects. */
const ourCrds = () =>
  readdirSync(`${root}charts/module-admission/files/crds`).map((file) =>
    loadYaml(readFileSync(`${root}charts/module-admission/files/crds/${file}`, "utf8")),
  );

const collection = (kind: OfflineKind) =>
  `/apis/${kind.kind.group}/${kind.kind.version}/namespaces/${namespace}/${kind.source.crd.names.plural}`;

/** A case's object in the test's namespace (the rules read no namespace; the chart excludes some). */
function placed(object: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(object);
  const metadata: Record<string, unknown> = {
    ...((copy.metadata ?? {}) as Record<string, unknown>),
    namespace,
  };
  for (const key of ["uid", "resourceVersion", "creationTimestamp", "managedFields"]) delete metadata[key];
  copy.metadata = metadata;
  return copy;
}

/** The outcome of one case through the real API server, beside the webhook's verdict on the same objects. */
interface Outcome {
  skipped?: string;
  server?: RuleFindings;
  webhook?: RuleFindings;
  /** Whether the validating policies ran (the schema and the CRD's rules accepted the object). */
  policiesRan?: boolean;
}

async function throughServer(plane: ControlPlane, kind: OfflineKind, c: PolicyCase): Promise<Outcome> {
  const object = placed(c.object);
  const name = (object.metadata as { name?: unknown }).name;
  if (typeof name !== "string" || name === "") return { skipped: "no name" };
  const local = decodedCase(kind, {
    ...c,
    object,
    ...(c.oldObject ? { oldObject: placed(c.oldObject) } : {}),
  });
  if (c.operation === "CREATE") {
    const answer = await api(plane, "POST", `${collection(kind)}?dryRun=All`, object);
    const seen = serverFindings(answer);
    if (seen.schemaRefused) return { skipped: "refused by the schema" };
    // The object as the policies saw it (defaulted by the API server), where it was admitted.
    const judged = answer.status < 300 ? answer.body : local.object;
    return {
      server: seen.findings,
      webhook: await webhookFindings(kind, judged, undefined, "CREATE"),
      policiesRan: seen.policiesRan,
    };
  }
  const old = placed(c.oldObject ?? {});
  (old.metadata as Record<string, unknown>).name = name;
  const stored = await api(plane, "POST", collection(kind), old);
  if (stored.status >= 300) return { skipped: "the old object is refused" };
  try {
    const metadata = stored.body.metadata as { resourceVersion: string };
    (object.metadata as Record<string, unknown>).resourceVersion = metadata.resourceVersion;
    const answer = await api(plane, "PUT", `${collection(kind)}/${name}?dryRun=All`, object);
    const seen = serverFindings(answer);
    if (seen.schemaRefused) return { skipped: "refused by the schema" };
    const judged =
      answer.status < 300 ? answer.body : { ...(local.object as object), metadata: stored.body.metadata };
    return {
      server: seen.findings,
      webhook: await webhookFindings(kind, judged, stored.body, "UPDATE"),
      policiesRan: seen.policiesRan,
    };
  } finally {
    await api(plane, "DELETE", `${collection(kind)}/${name}`);
  }
}

/**
 * Runs cases through the server and compares, rule by rule, with the webhook: the rules the cluster
 * enforces (`enforced`), where its answer shows them (policy rules only when the policies ran).
 */
async function compareAll(
  plane: ControlPlane,
  cases: Iterable<PolicyCase>,
  enforced: (kind: OfflineKind) => RuleDeclaration[],
): Promise<{ compared: number; skipped: number; report: string[]; fired: Map<string, number> }> {
  const report: string[] = [];
  const fired = new Map<string, number>();
  let compared = 0;
  let skipped = 0;
  for (const c of cases) {
    const kind = kindOf(kinds, c.object);
    if (!kind) continue;
    const outcome = await throughServer(plane, kind, c);
    if (outcome.skipped || !outcome.server || !outcome.webhook) {
      skipped++;
      continue;
    }
    compared++;
    const rules = enforced(kind).filter((rule) => outcome.policiesRan || rule.native.by === "crd");
    for (const [rule] of outcome.server) fired.set(rule, (fired.get(rule) ?? 0) + 1);
    for (const d of disagreements(rules, outcome.webhook, outcome.server))
      report.push(`${c.name} (${c.operation}): ${JSON.stringify(d)}`);
  }
  return { compared, skipped, report, fired };
}

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
