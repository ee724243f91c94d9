import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { writeJson } from "../../src/base/exact-json.js";
import type { Finding } from "../../src/base/finding.js";
import { ruleCatalogue } from "../../src/resources/index.js";
import { type ApiClient, apiClient } from "../control-plane-diff/api-client.js";
import { fromAnswer, type Verdict } from "../control-plane-diff/verdicts.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { type KlmCase, klmCases } from "../support/klm-fields.js";

/**
 * Every field lifecycle-manager reads (test/support/klm-fields.ts), each case through Kyma's CRDs in
 * a real kube-apiserver with the chart's webhooks calling a local `serve` (a dry-run create: what the
 * cluster answers and whether it stores it) and through the built `validate`: both answer as the table
 * says, and the table keeps the standard: a denial only where lifecycle-manager certainly fails or a
 * rule declares itself stricter, with its reason; nothing lifecycle-manager accepts denied otherwise.
 */
describe("lifecycle-manager's fields: serve with the real API server and the built validate answer as the table says", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();
  const cases = klmCases();
  let api: ApiClient;

  before(async () => {
    const serve = await startLocalServe(plane(), [
      "--moduletemplate-check",
      "off",
      "--workspace-check",
      "off",
    ]);
    await registerChartWebhooks(plane(), serve, { kyma: { webhook: { enabled: true } } });
    api = apiClient(plane().kubeconfigPath);
    plane().defer(() => api.close());
    const namespace = await api.request("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "kcp-system" },
    });
    assert.ok(namespace.status < 300 || namespace.status === 409, String(namespace.status));
  });

  it("keeps the standard: denies only what lifecycle-manager fails on, or by a rule declared stricter", () => {
    const stricter = new Set(
      ruleCatalogue()
        .flatMap((section) => section.rules)
        .filter((rule) => "stricter" in rule && rule.stricter)
        .map((rule) => rule.id),
    );
    for (const c of cases) {
      if (c.expected.verdict !== "deny" || c.klm === "fails") continue;
      assert.ok(
        stricter.has(c.expected.rule),
        `${c.kind} ${c.field}: ${c.name}: denied, lifecycle-manager ${c.klm}`,
      );
    }
    const fields = new Set(cases.map((c) => `${c.kind} ${c.field}`));
    assert.ok(fields.size >= 20, `${fields.size} fields`);
  });

  it("each case: the API server with serve, and the built validate", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "klm-fields-"));
    const fileOf = (i: number) => join(dir, `case-${String(i).padStart(3, "0")}.json`);
    cases.forEach((c, i) => {
      writeFileSync(fileOf(i), writeJson(c.object));
    });
    const run = builtCli(["validate", "-o", "json", dir]);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const findings = builtFindings(run);
    const wrong: string[] = [];
    for (const [i, c] of cases.entries()) {
      const server = await serverVerdict(api, c);
      const offline = findings.filter((f) => f.file === fileOf(i));
      const problems = [...serverProblems(c, server), ...cliProblems(c, offline)];
      if (problems.length > 0)
        wrong.push(
          `${c.kind} ${c.field}: ${c.name}: ${problems.join("; ")}\n  server ${JSON.stringify(server)}\n  validate ${JSON.stringify(offline.map((f) => `${f.rule}: ${f.message}`))}`,
        );
    }
    const counts = { admit: 0, warn: 0, deny: 0 };
    for (const c of cases) counts[c.expected.verdict]++;
    t.diagnostic(
      `${cases.length} cases over ${new Set(cases.map((c) => `${c.kind} ${c.field}`)).size} fields (${JSON.stringify(counts)}): ${wrong.length} wrong`,
    );
    assert.deepEqual(wrong, []);
  });
});

/** A server-side dry-run create of the case in kcp-system. */
async function serverVerdict(api: ApiClient, c: KlmCase): Promise<Verdict> {
  const plural = c.kind === "ModuleTemplate" ? "moduletemplates" : "modulereleasemetas";
  const path = `/apis/operator.kyma-project.io/v1beta2/namespaces/kcp-system/${plural}`;
  return fromAnswer(await api.request("POST", path, c.object, { dryRun: "All" }));
}

function serverProblems(c: KlmCase, server: Verdict): string[] {
  const expected = c.expected;
  if (expected.verdict === "admit")
    return server.allowed && server.warnings.length === 0 ? [] : ["the API server did not admit it silently"];
  if (expected.verdict === "warn")
    return server.allowed && server.warnings.some((w) => w.includes(expected.words))
      ? []
      : [`the API server did not admit it with a warning of "${expected.words}"`];
  const tag = / \(rule [^)]+\)$/;
  const cause = server.causes.find((line) => line.includes(expected.words));
  if (server.allowed || cause === undefined)
    return [`the API server did not deny it for "${expected.words}"`];
  if (expected.rule === "crd") return tag.test(cause) ? ["denied by a rule, not by Kyma's CRD"] : [];
  return cause.endsWith(`(rule ${expected.rule})`) ? [] : [`not denied by rule ${expected.rule}`];
}

function cliProblems(c: KlmCase, findings: Finding[]): string[] {
  const expected = c.expected;
  const errors = findings.filter((f) => f.severity === "error");
  const warnings = findings.filter((f) => f.severity === "warning");
  const byRule = (f: Finding, rule: string) => f.rule.endsWith(`/${rule}`);
  if (expected.verdict === "admit")
    return findings.length === 0 ? [] : ["validate did not admit it silently"];
  if (expected.verdict === "warn")
    return errors.length === 0 &&
      warnings.some((f) => byRule(f, expected.rule) && f.message.includes(expected.words))
      ? []
      : [`validate did not admit it with a ${expected.rule} warning`];
  const found = errors.find((f) => f.message.includes(expected.words));
  if (found === undefined) return [`validate did not deny it for "${expected.words}"`];
  // Kyma's CRD: its schema or its own CEL rule, never the webhook.
  if (expected.rule === "crd")
    return found.rule.startsWith("validating-webhook/") ? ["validate names a webhook rule"] : [];
  return byRule(found, expected.rule) ? [] : [`validate names ${found.rule}, not ${expected.rule}`];
}
