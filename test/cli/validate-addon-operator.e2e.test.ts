import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { dump } from "js-yaml";
import { addonOperatorConfigMapKind } from "../../src/resources/addon-operator-configmap/index.js";
import { configMap, reviewConfigMap } from "../support/addon-modules.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { splitCauseMessage } from "../support/cause-message.js";
import { configMapRows, writeConfigMapRowTrees } from "../support/configmap-rows.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { loadDeckhouseCases } from "../support/deckhouse-cases.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";

/**
 * `validate --modules-dir` gives `serve`'s verdict on ConfigMap/addon-operator: the same admission, the
 * same errors (field and message) and the same warnings, for every case of the ConfigMap tables (issue
 * 13's rows, deckhouse's openapi cases) on the trees they were written for and on deckhouse v1.76.8.
 */

interface Case {
  name: string;
  data: Record<string, string>;
  oldData?: Record<string, string>;
}

interface Tree {
  modulesDir: string;
  globalHooksDir: string;
}

/** What serve answered, as a client reads it: errors as `field: message` (kubectl's line), warnings. */
async function served(server: LiveServer, c: Case) {
  const reply = await reviewConfigMap(server, c.data, c.oldData);
  const errors = reply.causes.map((cause) => {
    const { message } = splitCauseMessage(cause.message);
    return cause.field ? `${cause.field}: ${message}` : message;
  });
  if (!reply.allowed && errors.length === 0) errors.push(reply.message);
  return { allowed: reply.allowed, errors: errors.sort(), warnings: reply.warnings.sort() };
}

/** The ConfigMap as a manifest; every other one without its namespace (judged as in addon-operator's). */
function manifest(data: Record<string, string>, index: number): string {
  const object = configMap(data);
  if (index % 2 === 1) delete (object.metadata as { namespace?: string }).namespace;
  return dump(object);
}

function dirArgs(tree: Tree): string[] {
  return ["--modules-dir", tree.modulesDir, "--global-hooks-dir", tree.globalHooksDir];
}

/** Every CREATE case in one run of the built CLI (a file per case), every UPDATE in a run with --old. */
function validated(tree: Tree, cases: Case[]) {
  const dir = mkdtempSync(join(tmpdir(), "validate-configmap-"));
  const file = (i: number) => join(dir, `case-${String(i).padStart(4, "0")}.yaml`);
  const creates = cases.flatMap((c, i) => (c.oldData ? [] : [i]));
  for (const i of creates) writeFileSync(file(i), manifest(cases[i]?.data ?? {}, i));
  const runs = [{ run: builtCli(["validate", "-o", "json", ...dirArgs(tree), dir]), indices: creates }];
  for (const [i, c] of cases.entries()) {
    if (!c.oldData) continue;
    const newFile = join(dir, `update-${i}.yaml`);
    const oldFile = join(dir, `update-${i}.old`);
    writeFileSync(newFile, manifest(c.data, i));
    writeFileSync(oldFile, manifest(c.oldData, i + 1));
    runs.push({
      run: builtCli(["validate", "-o", "json", ...dirArgs(tree), newFile, "--old", oldFile]),
      indices: [i],
    });
  }
  const verdicts = new Map<number, { allowed: boolean; errors: string[]; warnings: string[] }>();
  for (const { run, indices } of runs) {
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const findings = builtFindings(run);
    const summary = (JSON.parse(run.stdout) as { summary: { checked: number; denied: number } }).summary;
    assert.equal(summary.checked, indices.length, "every ConfigMap is checked, none skipped");
    for (const i of indices) {
      const name = indices.length === 1 && cases[i]?.oldData ? join(dir, `update-${i}.yaml`) : file(i);
      const mine = findings.filter((finding) => finding.file === name);
      const errors = mine.filter((f) => f.severity === "error").map((f) => f.message);
      const warnings = mine.filter((f) => f.severity === "warning").map((f) => f.message);
      verdicts.set(i, { allowed: errors.length === 0, errors: errors.sort(), warnings: warnings.sort() });
    }
    const denied = indices.filter((i) => verdicts.get(i)?.allowed === false).length;
    assert.equal(summary.denied, denied);
    assert.equal(run.status, denied > 0 ? 1 : 0);
  }
  return verdicts;
}

async function assertParity(tree: Tree, cases: Case[]) {
  const server = await startLiveServer([
    addonOperatorConfigMapKind({
      ...tree,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    }),
  ]);
  try {
    const verdicts = validated(tree, cases);
    const counts = { denied: 0, warned: 0 };
    for (const [i, c] of cases.entries()) {
      const expected = await served(server, c);
      assert.deepEqual(verdicts.get(i), expected, c.name);
      if (!expected.allowed) counts.denied++;
      if (expected.warnings.length > 0) counts.warned++;
    }
    return counts;
  } finally {
    await server.close();
  }
}

describe("validate --modules-dir: serve's verdict on ConfigMap/addon-operator, offline", () => {
  it("on issue 13's rows (creates and updates with --old): the same verdict, errors and warnings", async () => {
    const cases = configMapRows.map((row) => ({
      name: row.why,
      data: row.data,
      ...(row.oldData ? { oldData: row.oldData } : {}),
    }));
    const counts = await assertParity(writeConfigMapRowTrees(), cases);
    assert.ok(counts.denied >= 10 && counts.warned >= 1, JSON.stringify(counts));
    assert.ok(cases.some((c) => c.oldData));
  });

  describe("on deckhouse's trees and case tables", { skip: withoutCorpus }, () => {
    const tables = (() => {
      if (withoutCorpus) return [];
      const v143 = corpusPath("addon-operator/deckhouse-v1.43.1");
      return loadDeckhouseCases(join(v143, "modules"), join(v143, "global-hooks"))
        .filter((c) => c.kind === "configValues")
        .map((c, i) => ({
          name: `${c.dir.split("/").pop()} ${c.verdict} configValues[${c.index}] (#${i})`,
          // As deckhouse's harness judges it: the module enabled.
          data: {
            [c.key]: JSON.stringify(c.values),
            ...(c.key === "global" ? {} : { [`${c.key}Enabled`]: "true" }),
          },
        }));
    })();

    // On v1.76.8 most cases' modules are gone or renamed: their sections warn (unknown module) in both.
    const expected = {
      "deckhouse-v1.43.1": { denied: 50, warned: 0 },
      "deckhouse-v1.76.8": { denied: 10, warned: 100 },
    };
    for (const [version, least] of Object.entries(expected)) {
      it(`${version}: all 203 configValues cases give serve's verdict`, async () => {
        const root = corpusPath("addon-operator", version);
        const tree = { modulesDir: join(root, "modules"), globalHooksDir: join(root, "global-hooks") };
        assert.equal(tables.length, 203);
        const counts = await assertParity(tree, tables);
        assert.ok(counts.denied >= least.denied && counts.warned >= least.warned, JSON.stringify(counts));
      });
    }
  });
});

describe("validate --modules-dir: which ConfigMap, and the flags", () => {
  let tree: Tree;
  before(() => {
    tree = writeConfigMapRowTrees();
  });

  it("skips (and counts) other ConfigMaps; --addon-configmap names the one addon-operator reads", () => {
    const dir = mkdtempSync(join(tmpdir(), "validate-configmap-"));
    const bad = { plain: "a: x\n" };
    writeFileSync(
      join(dir, "all.yaml"),
      [configMap(bad), configMap(bad, "other"), configMap(bad, "addon-operator", "elsewhere")]
        .map((object) => dump(object))
        .join("---\n"),
    );
    const run = builtCli(["validate", ...dirArgs(tree), dir]);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /ConfigMap addon-operator\/addon-operator: data\.plain\.a: /);
    assert.match(
      run.stdout,
      /3 objects read; 1 checked \(1 denied, 0 warned\); 2 skipped \(no schema: 2 v1 ConfigMap\)/,
    );
    const other = builtCli([
      "validate",
      ...dirArgs(tree),
      "--addon-configmap",
      "elsewhere/addon-operator",
      dir,
    ]);
    assert.equal(other.status, 1);
    assert.match(other.stdout, /ConfigMap elsewhere\/addon-operator: data\.plain\.a: /);
    assert.doesNotMatch(other.stdout, /ConfigMap addon-operator\/addon-operator:/);
  });

  it("a missing modules dir, and --global-hooks-dir alone, are usage errors", () => {
    const missing = builtCli(["validate", "--modules-dir", join(tree.modulesDir, "nope"), "-"]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--modules-dir .*nope: not a directory/);
    const alone = builtCli(["validate", "--global-hooks-dir", tree.globalHooksDir, "-"]);
    assert.equal(alone.status, 2);
    assert.match(alone.stderr, /--global-hooks-dir needs --modules-dir/);
  });

  it("--rule-action takes the ConfigMap's rules as serve does", () => {
    const dir = mkdtempSync(join(tmpdir(), "validate-configmap-"));
    writeFileSync(join(dir, "cm.yaml"), dump(configMap({ plain: "a: x\n" })));
    const run = builtCli([
      "validate",
      ...dirArgs(tree),
      "--rule-action",
      "addon-operator-configmap.module-values=warn",
      dir,
    ]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /warning: ConfigMap addon-operator\/addon-operator: data\.plain\.a: /);
  });
});
