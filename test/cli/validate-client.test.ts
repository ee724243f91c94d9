import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";

/** A Module whose own annotations take `bytes` (key and value, as the API server counts them). */
const annotated = (bytes: number) => ({
  apiVersion: "batch.forkspacer.com/v1",
  kind: "Module",
  metadata: { name: "big", namespace: "default", annotations: { note: "x".repeat(bytes - 4) } },
  spec: { workspace: { name: "dev" }, custom: { image: "app:1" } },
});

describe("validate --client: what kubectl apply, kubectl create and a GitOps tool send", () => {
  const file = join(manifestDir({ "big.yaml": [annotated(140_000)] }), "big.yaml");

  it("kubectl apply's last-applied annotation counts toward the 256 KiB of annotations; kubectl create adds none", async () => {
    const apply = await validateCli(["--client", "kubectl-apply", "-o", "json", file]);
    assert.equal(apply.status, 1, apply.stdout);
    assert.deepEqual(
      jsonFindings(apply)
        .filter((f) => f.severity === "error")
        .map((f) => f.message),
      [
        "metadata.annotations: Too long: may not be more than 262144 bytes",
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
      ],
    );
    for (const client of ["kubectl-create", "gitops"]) {
      const run = await validateCli(["--client", client, file]);
      assert.equal(run.status, 0, `${client}: ${run.stdout}`);
    }
    assert.match(
      (await validateCli(["--client", "kubectl-create", file])).stdout,
      /judged as kubectl create sends it/,
    );
    // --yaml kubectl is kubectl apply.
    assert.equal((await validateCli(["--yaml", "kubectl", file])).status, 1);
  });

  it("refuses --yaml and --client that disagree, and --old with kubectl create", async () => {
    const disagree = await validateCli(["--yaml", "gitops", "--client", "kubectl-create", file]);
    assert.equal(disagree.status, 2);
    assert.match(disagree.stderr, /--yaml gitops and --client kubectl-create disagree/);
    const old = await validateCli(["--client", "kubectl-create", "--old", file, file]);
    assert.equal(old.status, 2);
    assert.match(old.stderr, /kubectl create only creates/);
    assert.equal((await validateCli(["--yaml", "kubectl", "--client", "kubectl-create", file])).status, 0);
  });
});
