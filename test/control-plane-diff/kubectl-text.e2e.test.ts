import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import type { Finding } from "../../src/base/finding.js";
import { offlineKinds } from "../../src/offline/kinds.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";
import { apiClient } from "./api-client.js";
import { generate } from "./generator.js";
import { corpusInputs } from "./inputs.js";
import { type KubectlOutcome, kubectlApply } from "./kubectl.js";
import { repeatedKeyCases } from "./repeated-keys.js";
import { createNamespaces, namespaceOf } from "./run.js";

/**
 * Manifest text through the real kubectl (apply and create, `--dry-run=server`) against kube-apiserver
 * 1.37 with the chart's webhooks calling a local `serve`, and through the built `validate --client
 * kubectl-apply|kubectl-create`: the same verdict and the same causes (issue 43). Two classes: what
 * each client sends (kubectl apply's last-applied annotation counts toward the 256 KiB of annotations,
 * kubectl create adds none), and generated manifests with a repeated key (kubectl keeps the last value;
 * validate names both lines).
 */
describe("kubectl apply and kubectl create of manifest text: validate --client agrees with the real kubectl", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();
  const kinds = offlineKinds();

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
  });

  it("the last-applied annotation: kubectl apply adds it (256 KiB of annotations passed), kubectl create does not", async (t) => {
    const module = (metadata: string, spec = "") =>
      `apiVersion: batch.forkspacer.com/v1\nkind: Module\nmetadata:\n${metadata}spec:\n  workspace: {name: dev}\n  custom: {image: "app:1"}\n${spec}`;
    const annotated = (bytes: number) =>
      module(`  name: big\n  namespace: default\n  annotations:\n    note: ${"x".repeat(bytes - 4)}\n`);
    const cases: Record<string, string> = {
      // The annotations alone are within the limit; apply's copy of the manifest doubles them.
      "annotations of 140,000 bytes": annotated(140_000),
      "annotations of exactly 262,144 bytes": annotated(262_144),
      "annotations of 262,145 bytes": annotated(262_145),
      "a small Module": module("  name: small\n  namespace: default\n"),
      // kubectl create rewrites an annotation the manifest carries (it records the manifest itself).
      "a manifest carrying a last-applied annotation": module(
        `  name: carried\n  namespace: default\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{"stale":true}'\n    note: ${"y".repeat(140_000)}\n`,
      ),
      "null fields (apply drops them, create sends them)": module(
        "  name: nulls\n  namespace: default\n",
        "  hibernated: null\n  config: {a: null}\n",
      ),
      "a generateName (apply refuses it before sending)": module(
        "  generateName: gen-\n  namespace: default\n",
      ),
      "no name at all": module("  namespace: default\n"),
    };
    const outcomes: Record<string, Record<string, boolean>> = {};
    for (const verb of ["apply", "create"] as const) {
      const { real, ours } = await bothWays(plane, Object.values(cases), verb);
      Object.keys(cases).forEach((name, i) => {
        const r = real[i] as Outcome;
        const o = ours[i] as Outcome;
        assert.deepEqual(o, r, `${name}, kubectl ${verb}`);
        outcomes[name] = { ...outcomes[name], [verb]: r.admitted };
      });
    }
    // What the two clients differ on, as the real kubectl showed it.
    assert.deepEqual(outcomes["annotations of 140,000 bytes"], { apply: false, create: true });
    assert.deepEqual(outcomes["annotations of exactly 262,144 bytes"], { apply: false, create: true });
    assert.deepEqual(outcomes["annotations of 262,145 bytes"], { apply: false, create: false });
    assert.deepEqual(outcomes["a manifest carrying a last-applied annotation"], {
      apply: false,
      create: false,
    });
    assert.deepEqual(outcomes["a generateName (apply refuses it before sending)"], {
      apply: false,
      create: true,
    });
    t.diagnostic(`${Object.keys(cases).length} manifests × 2 clients: ${JSON.stringify(outcomes)}`);
  });

  it("generated manifests with a repeated key (top level, metadata, spec, nested; block and flow): the same verdicts, both lines named", async (t) => {
    const count = Number(process.env.MODULE_ADMISSION_DIFF_OBJECTS ?? 80);
    const seed = Number(process.env.MODULE_ADMISSION_DIFF_SEED ?? 43);
    // Generated objects (mostly denied: one mutation away from valid) and every third real object of
    // the corpora (mostly admitted), each written with one repeated key.
    const generated = generate(kinds, count, seed, 0);
    const real = withoutCorpus ? [] : corpusInputs(kinds, "kubectl").filter((_, i) => i % 3 === 0);
    const cases = repeatedKeyCases([...generated, ...real], seed);
    const api = apiClient(plane().kubeconfigPath);
    plane().defer(() => api.close());
    await createNamespaces(
      api,
      [...generated, ...real].map((g) => namespaceOf(g.object as Record<string, unknown>)),
    );
    const unexplained: string[] = [];
    let denied = 0;
    for (const verb of ["apply", "create"] as const) {
      const { real, ours, findings } = await bothWays(
        plane,
        cases.map((c) => c.text),
        verb,
      );
      cases.forEach((c, i) => {
        const r = real[i] as Outcome;
        const o = ours[i] as Outcome;
        if (!r.admitted) denied++;
        if (JSON.stringify(r) !== JSON.stringify(o))
          unexplained.push(
            `kubectl ${verb} of ${c.name}: kubectl ${JSON.stringify(r)}, validate ${JSON.stringify(o)}\n${c.text}`,
          );
        const named = (findings[i] ?? []).some(
          (f) =>
            f.severity === "warning" &&
            f.rule === "input/YamlReading" &&
            f.message.includes(`the key is repeated (lines ${c.lines[0]}, ${c.lines[1]})`),
        );
        if (!named)
          unexplained.push(
            `kubectl ${verb} of ${c.name}: no warning naming lines ${c.lines.join(", ")}\n${c.text}`,
          );
      });
    }
    const where = Object.fromEntries(
      ["top level", "metadata", "spec", "nested"].map((w) => [w, cases.filter((c) => c.where === w).length]),
    );
    t.diagnostic(
      `seed ${seed}: ${cases.length} manifests (${generated.length} generated, ${real.length} real; ${JSON.stringify(where)}) × 2 clients: ${denied} denied by the API server; ${unexplained.length} unexplained`,
    );
    assert.ok(cases.length >= (count + real.length) * 0.9, `${cases.length} cases`);
    assert.ok(denied > 0 && denied < cases.length * 2, "both verdicts occur");
    assert.deepEqual(unexplained.slice(0, 5), []);
  });
});

/** A verdict as both sides can state it: admitted, and the causes of a denial (sorted). */
interface Outcome {
  admitted: boolean;
  causes: string[];
}

/**
 * Each text through the real `kubectl <verb> --dry-run=server` (four at a time) and, as files of one
 * folder, through the built `validate --client kubectl-<verb> -o json`.
 */
async function bothWays(
  plane: () => Parameters<typeof kubectlApply>[0],
  texts: string[],
  verb: "apply" | "create",
): Promise<{ real: Outcome[]; ours: Outcome[]; findings: Finding[][] }> {
  const dir = mkdtempSync(join(tmpdir(), `kubectl-${verb}-`));
  const fileOf = (i: number) => join(dir, `case-${String(i).padStart(3, "0")}.yaml`);
  for (const [i, text] of texts.entries()) writeFileSync(fileOf(i), text);
  const run = builtCli(["validate", "--client", `kubectl-${verb}`, "-o", "json", dir]);
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  const all = builtFindings(run);
  const findings = texts.map((_, i) => all.filter((f) => f.file === fileOf(i)));
  const ours = findings.map((list) => {
    const errors = list.filter((f) => f.severity === "error");
    return { admitted: errors.length === 0, causes: errors.map(causeOf).sort() };
  });
  const outcomes: KubectlOutcome[] = [];
  for (let i = 0; i < texts.length; i += 4)
    outcomes.push(
      ...(await Promise.all(texts.slice(i, i + 4).map((text) => kubectlApply(plane(), text, verb)))),
    );
  const real = outcomes.map((o) => ({ admitted: o.admitted, causes: o.errors.map(realCause).sort() }));
  return { real, ours, findings };
}

/** A rule's tag after a message (a webhook's answer, a CEL rule's message): compared without it. */
const ruleTag = / \(rule [^)]+\)$/;

/** A finding's cause as kubectl words it: a refusal before validation names its reason. */
function causeOf(finding: Finding): string {
  if (/^decode\/Kubectl/.test(finding.rule)) return finding.message;
  if (finding.rule.startsWith("decode/"))
    return `${finding.rule.slice("decode/".length)}: ${finding.message}`;
  return finding.message.replace(ruleTag, "");
}

/** kubectl's error line as validate words it: its own refusals prefixed `kubectl:`, rule tags dropped. */
function realCause(line: string): string {
  const client =
    /^KubectlDecode: (.*)$/s.exec(line) ?? /^error: (?:[\s\S]*from server for: "STDIN": )?(.*)$/s.exec(line);
  if (client) return client[1]?.startsWith("kubectl: ") ? client[1] : `kubectl: ${client[1]}`;
  return line.replace(ruleTag, "");
}
