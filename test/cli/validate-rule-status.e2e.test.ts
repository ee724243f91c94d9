import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { before, describe, it } from "node:test";
import type { RuleStatus } from "../../src/admission/rule-status.js";
import { manifestDir } from "../support/cli.js";
import { helmModule } from "../support/modules.js";
import { buildCommand } from "../support/serve-process.js";

/**
 * `validate -o json`'s per-rule status of each object (docs/ci.md): what was judged (pass, fail, warn)
 * and what was not (skip, with its reason), through the built command as users run it.
 */

interface ObjectStatus {
  file: string;
  line: number;
  object: string;
  skipped?: string;
  rules?: RuleStatus[];
}

let main = "";
before(() => {
  main = buildCommand();
});

function validate(objects: unknown[], ...args: string[]) {
  const dir = manifestDir({ "objects.yaml": objects });
  const run = spawnSync(process.execPath, [main, "validate", dir, "-o", "json", ...args], {
    encoding: "utf8",
  });
  const output = JSON.parse(run.stdout) as { objects: ObjectStatus[]; findings: { rule: string }[] };
  return { status: run.status, ...output };
}

/** The object's rules by status: `{ fail: [...], skip: [...] }`, each skip as `rule reason`. */
function byStatus(object: ObjectStatus | undefined): Record<string, string[]> {
  assert.ok(object?.rules, "the object has its rules' statuses");
  const grouped: Record<string, string[]> = {};
  for (const { rule, status, reason } of object.rules) {
    const entries = grouped[status] ?? [];
    entries.push(status === "skip" ? `${rule} ${reason}` : rule);
    grouped[status] = entries;
  }
  return grouped;
}

const statusOf = (object: ObjectStatus | undefined, rule: string) =>
  object?.rules?.find((status) => status.rule === rule);

const transitionRules = [
  "module.workspace-immutable",
  "module.config-immutable",
  "module.source-immutable",
  "module.custom-image-immutable",
  "module.release-name-immutable",
  "module.existing-release-immutable",
  "module.helm-namespace-immutable",
  "module.outputs-immutable",
];

describe("validate -o json: each rule's status per object", () => {
  it("a denied Module: the rule that denies fails, a misspelt value warns, every other rule is listed once", () => {
    const module = helmModule();
    module.spec.config = { ...module.spec.config, replicas: 7, repliacs: 1 };
    const run = validate([module]);
    assert.equal(run.status, 1);
    const [object] = run.objects;
    assert.equal(object?.object, "Module default/redis");
    assert.equal(object?.line, 1);
    const grouped = byStatus(object);
    assert.deepEqual(grouped.fail, ["module.config-value"]);
    assert.deepEqual(grouped.warn, ["module.config-undeclared"]);
    const ids = object?.rules?.map((status) => status.rule) ?? [];
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes("webhook.work-budget") && ids.includes("module.schema"));
    // The findings are as before: the per-rule status adds to them.
    assert.deepEqual(
      run.findings.map((finding) => finding.rule),
      ["validating-webhook/module.config-value", "validating-webhook/module.config-undeclared"],
    );
  });

  it("skips: update-only rules on a create, a lookup this run cannot make, a rule turned off; --old and --cluster-objects judge them", () => {
    const module = helmModule();
    module.spec.config = { ...module.spec.config, replicas: 7 };
    const created = validate([module], "--rule-action", "module.config-value=off");
    assert.equal(created.status, 0);
    const [object] = created.objects;
    assert.deepEqual(
      byStatus(object).skip?.sort(),
      [
        "module.config-value rule-action-off",
        "module.workspace-exists lookup",
        ...transitionRules.map((rule) => `${rule} update-only`),
      ].sort(),
    );
    assert.equal(
      statusOf(object, "module.config-value")?.message,
      "its rule action is off (--rule-action module.config-value=off)",
    );
    assert.match(statusOf(object, "module.workspace-exists")?.message ?? "", /--cluster-objects/);

    const workspace = {
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Workspace",
      metadata: { name: "dev-environment", namespace: "default" },
      spec: { type: "kubernetes" },
    };
    // An update of the Module as stored (spec.config is immutable): ratcheting spares the old error.
    const dir = manifestDir({ "old.yaml": [module], "cluster.yaml": [workspace] });
    const updated = validate(
      [module],
      "--old",
      `${dir}/old.yaml`,
      "--cluster-objects",
      `${dir}/cluster.yaml`,
    );
    assert.equal(updated.status, 0);
    const [judged] = updated.objects;
    const grouped = byStatus(judged);
    assert.equal(grouped.skip, undefined, JSON.stringify(judged?.rules));
    assert.deepEqual(grouped.warn, ["module.config-value"]);
    for (const rule of [...transitionRules, "module.workspace-exists"]) {
      assert.equal(statusOf(judged, rule)?.status, "pass", rule);
    }
    // A Workspace the cluster does not hold: the lookup is made, and fails.
    const elsewhere = manifestDir({
      "cluster.yaml": [{ ...workspace, metadata: { name: "other", namespace: "default" } }],
    });
    const [missing] = validate([module], "--cluster-objects", `${elsewhere}/cluster.yaml`).objects;
    assert.equal(statusOf(missing, "module.workspace-exists")?.status, "fail");
  });

  it("an object its schema refuses: the schema rule fails, the webhook's rules are skipped, the API server refused first", () => {
    const module = helmModule() as unknown as { spec: { helm: { releaseName: unknown } } };
    module.spec.helm.releaseName = 5;
    const run = validate([module]);
    assert.equal(run.status, 1);
    const [object] = run.objects;
    const grouped = byStatus(object);
    assert.deepEqual(grouped.fail, ["module.schema"]);
    assert.equal(grouped.pass, undefined);
    assert.ok((grouped.skip ?? []).every((entry) => entry.endsWith(" refused-first")));
    assert.equal((grouped.skip ?? []).length, (object?.rules?.length ?? 0) - 1);
    assert.equal(
      statusOf(object, "module.config-value")?.message,
      "not judged: the API server's schema validation refused the object first, and the validating webhook runs after it",
    );
  });

  it("-o sarif notes the rules a run did not judge, by why, once per run (not update-only rules, nor lookups: named already)", () => {
    const refused = helmModule() as unknown as {
      metadata: { name: string };
      spec: { helm: { releaseName: unknown } };
    };
    refused.spec.helm.releaseName = 5;
    const other = structuredClone(refused);
    other.metadata.name = "other";
    const dir = manifestDir({ "objects.yaml": [refused, other, helmModule()] });
    const run = spawnSync(process.execPath, [main, "validate", dir, "-o", "sarif"], { encoding: "utf8" });
    const sarif = JSON.parse(run.stdout) as {
      runs: {
        invocations: {
          toolExecutionNotifications: { descriptor: { id: string }; message: { text: string } }[];
        }[];
      }[];
    };
    const notes = sarif.runs[0]?.invocations[0]?.toolExecutionNotifications ?? [];
    const [judged] = validate([refused]).objects;
    const skipped = judged?.rules?.filter((status) => status.status === "skip").length ?? 0;
    assert.deepEqual(
      notes.map((note) => [note.descriptor.id, note.message.text]),
      [
        [
          "module.workspace-exists",
          "not checked (1 objects): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR",
        ],
        [
          "skip/refused-first",
          `${skipped} rules not judged on 2 objects: not judged: the API server's schema validation refused the object first, and the validating webhook runs after it`,
        ],
      ],
    );
  });

  it("a review out of its work budget: webhook.work-budget fails, every other rule is skipped as not judged", () => {
    // Ten values each rendering a million characters, and escaping them (issue 32's templates).
    const module = helmModule();
    const raw = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`k${i}`, '{{$x := js (printf "%999999d" 1)}}']),
    );
    if (module.spec.helm) module.spec.helm.values = [{ raw }];
    const run = validate([module]);
    assert.equal(run.status, 1);
    const [object] = run.objects;
    const grouped = byStatus(object);
    assert.deepEqual(grouped.fail, ["webhook.work-budget"]);
    assert.equal(grouped.pass, undefined);
    const notJudged = (grouped.skip ?? []).filter((entry) => entry.endsWith(" work-budget"));
    const updateOnly = (grouped.skip ?? []).filter((entry) => entry.endsWith(" update-only"));
    assert.deepEqual(
      updateOnly,
      transitionRules.map((rule) => `${rule} update-only`),
    );
    assert.equal(notJudged.length + updateOnly.length, (object?.rules?.length ?? 0) - 1);
    assert.equal(
      statusOf(object, "module.template-exec")?.message,
      "not judged: the review ran out of its work budget first (webhook.work-budget)",
    );
  });

  it("an object of a kind without a schema is listed, skipped, with no rules", () => {
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: {} };
    const run = validate([deployment]);
    assert.equal(run.status, 0);
    assert.deepEqual(run.objects, [
      {
        file: run.objects[0]?.file,
        line: 1,
        object: "Deployment web",
        skipped: "no schema for apps/v1 Deployment",
      },
    ]);
  });
});
