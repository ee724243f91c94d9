import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { manifestDir, validateCli } from "../support/cli.js";
import { unplacedObjects } from "../support/unplaced-objects.js";

/**
 * `validate --old` prepares both objects of an UPDATE as the API server holds them (issue 43): the old
 * object as it was stored (through the mutating webhook), both in the request's namespace. The same
 * cases through the real API server with serve: test/admission/updates.e2e.test.ts.
 */
describe("validate --old: the old object as stored, in the request's namespace", () => {
  it("a managed Workspace without connection, against itself: admitted (the old one mutated as when stored)", async () => {
    const manifest = {
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Workspace",
      metadata: { name: "team-a", namespace: "default" },
      spec: { type: "managed" },
    };
    const file = join(manifestDir({ "workspace.yaml": [manifest] }), "workspace.yaml");
    const run = await validateCli(["--old", file, file, "-o", "json"]);
    assert.equal(run.status, 0, run.stdout);
  });

  it("objects of every namespaced kind without a namespace, updated: judged in --namespace (default: default), said in the summary", async () => {
    const { objects, labelled } = unplacedObjects();
    const dir = manifestDir({ "old.yaml": objects, "new.yaml": labelled });
    const files = ["--old", join(dir, "old.yaml"), join(dir, "new.yaml")];
    const inNamespace = await validateCli(["--namespace", "kcp-system", ...files, "-o", "json"]);
    assert.equal(inNamespace.status, 0, inNamespace.stdout);
    const { summary } = JSON.parse(inNamespace.stdout) as { summary: { withoutNamespace?: unknown } };
    assert.deepEqual(summary.withoutNamespace, { namespace: "kcp-system", objects: 4 });
    const plain = await validateCli(files);
    assert.equal(plain.status, 0, plain.stdout);
    assert.match(plain.stdout, /4 objects without a namespace judged in default \(--namespace\)/);
    // The old version found in the namespace given to it: a label added, judged as an UPDATE.
    const placed = objects.map((object) => ({
      ...object,
      metadata: { ...object.metadata, namespace: "default" },
    }));
    const mixed = manifestDir({ "old.yaml": placed, "new.yaml": labelled });
    const update = await validateCli(["--old", join(mixed, "old.yaml"), join(mixed, "new.yaml")]);
    assert.equal(update.status, 0, update.stdout);
  });
});
