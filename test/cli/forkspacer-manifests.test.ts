import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { load, loadAll } from "js-yaml";
import { CustomResourceStrategy } from "../../src/apiextensions/custom-resource.js";
import type { Module } from "../../src/generated/module.js";
import { admitOffline, type OfflineVerdict } from "../../src/offline/admit.js";
import { type OfflineKind, offlineKinds } from "../../src/offline/kinds.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";
import { pruneAndDefault } from "../../src/validation/prune-default.js";
import { structureChecker } from "../../src/validation/structure.js";
import { jsonFindings, validateCli } from "../support/cli.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";

// The operator's 28 real Modules (26 files) and its CRDs, read in place.
const shared = corpusPath("forkspacer");
const manifestsDir = join(shared, "manifests");
const files = () =>
  readdirSync(manifestsDir)
    .filter((file) => file.endsWith(".yaml"))
    .sort();

/**
 * The five the operator cannot run, and what each denial must say (and nothing else but the API
 * server's note that a blocking error kept it from running the CRD's CEL rules).
 */
const denied: Record<string, RegExp> = {
  "docs__concepts__L290.yaml": /^spec\.workspace: Required value/,
  "forkspacer__config_samples_batch_v1_module.yaml": /^spec: Required value/,
  "forkspacer__examples_module_custom.yaml": /exactly one of spec\.helm or spec\.custom must be set/,
  "forkspacer__examples_module-vcluster-nginx.yaml": /exactly one of spec\.helm or spec\.custom must be set/,
  "docs__module__L886.yaml": /function "sub" not defined/,
};

/** The API server adds this cause when a blocking schema error kept it from running the CEL rules. */
const rulesNotChecked = /^<nil>: Invalid value: null: some validation rules were not checked/;

const ours = offlineKinds().find((kind) => kind.kind.kind === "Module") as OfflineKind;
/** Alongside: the API server decodes and checks with the operator's CRD; our webhooks run after it. */
function alongside(): OfflineKind {
  const operatorCrd = load(readFileSync(join(shared, "crds/batch.forkspacer.com_modules.yaml"), "utf8")) as {
    spec: { versions: { schema: { openAPIV3Schema: JsonSchema } }[] };
  };
  const operatorSchema = operatorCrd.spec.versions[0]?.schema.openAPIV3Schema as JsonSchema;
  return {
    ...ours,
    crdSchema: operatorSchema,
    checkStructure: structureChecker(operatorSchema),
    server: new CustomResourceStrategy({ ...ours.server.definition, openAPIV3Schema: operatorSchema }),
  };
}

const modules = (file: string) =>
  (loadAll(readFileSync(join(manifestsDir, file), "utf8")) as unknown[]).filter(
    (doc) => (doc as { kind?: string } | null)?.kind === "Module",
  );

async function verdicts(kind: OfflineKind): Promise<Map<string, OfflineVerdict[]>> {
  const all = new Map<string, OfflineVerdict[]>();
  for (const file of files())
    all.set(file, await Promise.all(modules(file).map((m) => admitOffline(kind, m))));
  return all;
}

function assertVerdicts(all: Map<string, OfflineVerdict[]>) {
  let count = 0;
  for (const [file, list] of all) {
    for (const verdict of list) {
      count++;
      const reason = denied[file];
      if (!reason) {
        assert.deepEqual(verdict.errors, [], `${file} is admitted`);
        continue;
      }
      assert.equal(verdict.allowed, false, `${file} is denied`);
      for (const error of verdict.errors.filter((e) => !rulesNotChecked.test(e.message)))
        assert.match(error.message, reason, `${file}: no other denial cause`);
    }
  }
  assert.equal(count, 28, "the 28 real Modules");
}

describe("the Forkspacer operator's 28 real Modules", { skip: withoutCorpus }, () => {
  it("validate -f: all admitted but five, each denied for its reason", async () => {
    const run = await validateCli(["-f", manifestsDir, "-o", "json"]);
    assert.equal(run.status, 1);
    const errors = jsonFindings(run).filter((finding) => finding.severity === "error");
    assert.deepEqual(
      [...new Set(errors.map((error) => error.file.split("/").pop()))].sort(),
      Object.keys(denied).sort(),
    );
    for (const error of errors.filter((e) => !rulesNotChecked.test(e.message)))
      assert.match(error.message, denied[error.file.split("/").pop() ?? ""] as RegExp);
  });

  it("replace mode: the same verdicts, each manifest defaulted by our CRD", async () => {
    assertVerdicts(await verdicts(ours));
  });

  it("alongside mode: the same verdicts, each manifest defaulted and checked by the operator's CRD", async () => {
    assertVerdicts(await verdicts(alongside()));
  });

  it("replace mode: no admitted Module sets a value for an item our CRD stores as not editable", async () => {
    let checked = 0;
    for (const file of files().filter((f) => !denied[f])) {
      for (const manifest of modules(file)) {
        const stored = pruneAndDefault(ours.crdSchema, manifest).object as Module;
        for (const item of stored.config ?? []) {
          const spec = item.string ?? item.integer ?? item.boolean ?? item.option ?? item.multipleOptions;
          assert.notEqual(spec?.editable, undefined, `${file}: editable is stored`);
          if (spec?.editable === false) assert.ok(!Object.hasOwn(stored.spec.config ?? {}, item.alias), file);
          if (Object.hasOwn(stored.spec.config ?? {}, item.alias)) checked++;
        }
      }
    }
    assert.ok(checked >= 11, `values for ${checked} items, all stored editable`);
  });
});
