import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { parseManifests } from "../../src/manifests/manifests.js";
import type { Client } from "../../src/offline/client.js";
import { offlineKinds } from "../../src/offline/kinds.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";
import { type ApiClient, apiClient } from "./api-client.js";
import { caseInputs, corpusInputs, type Input, labelAdded } from "./inputs.js";
import { edgeCases, edgeLiterals } from "./int64-edges.js";
import { type KubectlOutcome, kubectlApply, validateAsKubectl } from "./kubectl.js";
import {
  createNamespaces,
  createProbes,
  generatedDifferential,
  judgeAll,
  namespaceOf,
  report,
  storedUpdates,
  tally,
} from "./run.js";
import { differences, type Probe } from "./verdicts.js";

/**
 * The differential test of issue 31: every object of the ../shared corpora this project serves and
 * every case table of the test suite, through `validate` offline (admitOffline, what `validate` runs)
 * and through a real kube-apiserver 1.37 with the chart's webhooks registered against a local `serve`,
 * as a GitOps tool sends them (as they are, the server's default field validation) and as `kubectl
 * apply` sends them (null fields dropped, last-applied recorded, strict field validation): the same
 * verdict, the same causes (reason, field, message), the same warnings, the same stored object. UPDATE
 * pairs have their old objects stored as a real cluster comes to hold them (created under a looser CRD
 * before the webhooks, then both upgraded). Each difference is a failure unless a documented limit
 * (docs/ci.md, run.ts) explains it.
 *
 * serve runs without its Workspace and ModuleTemplate checks: lookups of other objects are what
 * `validate` does not do (a documented limit).
 */
describe("validate and kube-apiserver 1.37 with serve: the same verdicts", {
  skip: withoutGo || withoutCorpus,
}, () => {
  // A probe with 300,000 errors runs the API server out of its request timeout: 15 s, not 60, for that.
  const plane = useControlPlane({ apiServerFlags: ["--request-timeout=15s"] });
  const kinds = offlineKinds();
  let api: ApiClient;
  const inputsOf = (client: Client): Input[] => [...corpusInputs(kinds, client), ...caseInputs()];

  before(async () => {
    const serve = await startLocalServe(plane(), [
      "--workspace-check",
      "off",
      "--moduletemplate-check",
      "off",
    ]);
    await registerChartWebhooks(plane(), serve, {
      forkspacer: { mode: "replace" },
      kyma: { webhook: { enabled: true } },
    });
    api = apiClient(plane().kubeconfigPath);
    plane().defer(() => api.close());
    await createNamespaces(
      api,
      inputsOf("gitops").map((input) => namespaceOf(input.object)),
    );
  });

  for (const client of ["gitops", "kubectl"] as const) {
    it(`CREATE: every corpus object and case, as ${client === "kubectl" ? "kubectl apply" : "a GitOps tool"} sends it`, async (t) => {
      const inputs = inputsOf(client);
      const judged = await judgeAll(api, createProbes(kinds, inputs, client));
      const counts = tally(judged);
      t.diagnostic(
        `${counts.probes} objects (${corpusInputs(kinds, client).length} from the corpora), ${counts.denied} denied, ${counts.warned} warned; ${counts.limits} differences explained by a documented limit, ${counts.unexplained.length} unexplained`,
      );
      assert.ok(counts.probes >= 150, `${counts.probes} probes`);
      assert.equal(counts.unexplained.length, 0, report(counts.unexplained));
    });
  }

  it("the real kubectl apply -f: YAML 1.1, null fields dropped, strict field validation, as validate --yaml kubectl assumes", async (t) => {
    const [first, second] = readFileSync(
      new URL("../../examples/modules/redis.yaml", import.meta.url),
      "utf8",
    ).split(/^---$/m);
    const module = (spec: string, metadata = "  name: sample\n  namespace: default\n") =>
      `apiVersion: batch.forkspacer.com/v1\nkind: Module\nmetadata:\n${metadata}spec:\n  workspace: {name: dev-environment}\n${spec}`;
    const samples: Record<string, string> = {
      "the README's admitted Module": first ?? "",
      "the README's denied Module (a misspelt field, a value out of range)": second ?? "",
      "null map fields, a null list item": module(
        "  config: {tag: ~, other: {x: null}, list: [1, null]}\n  helm:\n    releaseName: ~\n    chart: {repo: {url: https://charts.example.com, chart: c, version: 1.0.0}}\n",
      ),
      "no namespace (kubectl's context default)": module("  custom: {image: app:1}\n", "  name: sample\n"),
      "yes as a boolean (YAML 1.1)": module("  hibernated: yes\n  custom: {image: app:1}\n"),
      // kubectl keeps a repeated key's last value: here the one that makes the Module valid, and then
      // the one that makes it invalid.
      "a repeated key, the last value valid": module(
        "  custom: {image: app:1}\n  hibernated: 7\n  hibernated: true\n",
      ),
      "a repeated key, the last value invalid": module(
        "  custom: {image: app:1}\n  hibernated: true\n  hibernated: 7\n",
      ),
      "a repeated key in metadata": module(
        "  custom: {image: app:1}\n",
        "  name: first\n  namespace: default\n  name: sample\n",
      ),
      "on as a label value (YAML 1.1: a boolean kubectl cannot decode into ObjectMeta)": module(
        "  custom: {image: app:1}\n",
        "  name: sample\n  namespace: default\n  labels: {enabled: on}\n",
      ),
      "an unknown field in an embedded resource's metadata": [
        "apiVersion: operator.kyma-project.io/v1beta2",
        "kind: ModuleTemplate",
        "metadata: {name: sample-1.0.0, namespace: default}",
        "spec:",
        "  moduleName: sample",
        "  version: 1.0.0",
        "  descriptor: {}",
        "  data: {apiVersion: v1, kind: ConfigMap, metadata: {name: x, colour: red}}",
      ].join("\n"),
    };
    for (const [name, text] of Object.entries(samples)) {
      const real = await kubectlApply(plane(), text);
      const offline = await validateAsKubectl(kinds, text);
      const verdict = (o: typeof real) => ({
        allowed: o.admitted,
        causes: o.errors,
        warnings: o.warnings,
        stored: o.object,
      });
      const [manifest] = parseManifests("m.yaml", text, "kubectl");
      const found = differences({ object: manifest?.object ?? {} }, verdict(real), verdict(offline));
      assert.deepEqual(found, [], `${name}: kubectl said ${JSON.stringify(real)}`);
    }
    t.diagnostic(`${Object.keys(samples).length} manifests through the real kubectl apply: the same outcome`);
  });

  it("UPDATE: every case with an old object, stored as a cluster comes to hold it, both clients", async (t) => {
    const updates = await storedUpdates(api, kinds, caseInputs(), "update");
    const probes: Probe[] = (["gitops", "kubectl"] as const).flatMap((client) =>
      updates.map((update) => ({ ...update, client })),
    );
    const judged = await judgeAll(api, probes);
    const counts = tally(judged);
    t.diagnostic(
      `${updates.length} UPDATE pairs × 2 clients: ${counts.denied} denied, ${counts.warned} warned; ${counts.limits} differences explained by a documented limit, ${counts.unexplained.length} unexplained`,
    );
    assert.ok(updates.length >= 20, `${updates.length} UPDATE pairs`);
    assert.equal(counts.unexplained.length, 0, report(counts.unexplained));
  });

  it("UPDATE: every corpus object with a label added (what controllers write), stored as a cluster holds it, both clients", async (t) => {
    const updates = await storedUpdates(api, kinds, labelAdded(corpusInputs(kinds, "gitops")), "labelled");
    const probes: Probe[] = (["gitops", "kubectl"] as const).flatMap((client) =>
      updates.map((update) => ({ ...update, client })),
    );
    const judged = await judgeAll(api, probes);
    const counts = tally(judged);
    t.diagnostic(
      `${updates.length} UPDATE pairs × 2 clients: ${counts.denied} denied, ${counts.warned} warned; ${counts.limits} differences explained by a documented limit, ${counts.unexplained.length} unexplained`,
    );
    // The API server's ratcheting does not spare every unchanged value (a free-form map in the value
    // makes it compare as changed): what it denies on a label alone is named.
    for (const { probe, server } of judged.filter((j) => !j.server.allowed && j.probe.client === "gitops"))
      t.diagnostic(
        `denied by the API server: ${probe.name}: ${JSON.stringify(server.refused ?? server.causes)}`,
      );
    assert.ok(updates.length >= 100, `${updates.length} UPDATE pairs`);
    assert.equal(counts.unexplained.length, 0, report(counts.unexplained));
  });

  it("a generated differential: objects from each kind's schema, valid and one mutation away, CREATE and UPDATE, both clients", async (t) => {
    // A few hundred here; `npm run fuzz:server` runs 10,000 and more (test/control-plane-diff/fuzz-server.ts).
    const count = Number(process.env.MODULE_ADMISSION_DIFF_OBJECTS ?? 300);
    const seed = Number(process.env.MODULE_ADMISSION_DIFF_SEED ?? 31);
    const outcome = await generatedDifferential(api, kinds, count, seed);
    const { creates, updates } = outcome;
    t.diagnostic(
      `seed ${seed}: ${outcome.objects} objects (${outcome.pairs} UPDATE pairs) as both clients: ${creates.probes} creates (${creates.denied} denied), ${updates.probes} updates (${updates.denied} denied); ${creates.limits + updates.limits} explained by a limit, ${creates.unexplained.length + updates.unexplained.length} unexplained; mutations ${JSON.stringify(outcome.mutations)}`,
    );
    assert.equal(outcome.objects, count);
    assert.ok(creates.denied > 0 && creates.denied < creates.probes, "both verdicts occur");
    assert.equal(
      creates.unexplained.length + updates.unexplained.length,
      0,
      report([...creates.unexplained, ...updates.unexplained]),
    );
  });

  it("int64 edges (issue 43): each edge literal as an integer's default, its bounds and a spec.config value, through the real kubectl and the built validate --yaml kubectl", async (t) => {
    const cases = edgeCases(edgeLiterals(2, Number(process.env.MODULE_ADMISSION_DIFF_SEED ?? 43)));
    const dir = mkdtempSync(join(tmpdir(), "int64-"));
    const fileOf = (i: number) => join(dir, `case-${String(i).padStart(3, "0")}.yaml`);
    for (const [i, c] of cases.entries()) writeFileSync(fileOf(i), c.text);
    const run = builtCli(["validate", "--yaml", "kubectl", "-o", "json", dir]);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const findings = builtFindings(run);
    const offline = cases.map((_, i) => {
      const errors = findings.filter((f) => f.file === fileOf(i) && f.severity === "error");
      return { admitted: errors.length === 0, causes: errors.map((f) => f.message).sort() };
    });
    const server: KubectlOutcome[] = [];
    for (let i = 0; i < cases.length; i += 4)
      server.push(...(await Promise.all(cases.slice(i, i + 4).map((c) => kubectlApply(plane(), c.text)))));
    const differences: string[] = [];
    cases.forEach((c, i) => {
      const real = server[i] as KubectlOutcome;
      const ours = offline[i] as { admitted: boolean; causes: string[] };
      const causes = real.errors.map((line) => line.replace(/ \(rule [^)]+\)$/, "")).sort();
      if (real.admitted !== ours.admitted || JSON.stringify(causes) !== JSON.stringify(ours.causes))
        differences.push(
          `${c.name}: kubectl ${JSON.stringify(real.errors)}, validate ${JSON.stringify(ours.causes)}`,
        );
    });
    const denied = server.filter((s) => !s.admitted).length;
    t.diagnostic(`${cases.length} cases (${denied} denied by the API server): ${differences.length} differ`);
    assert.deepEqual(differences, []);
  });
});
