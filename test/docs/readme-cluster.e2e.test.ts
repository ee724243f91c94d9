import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kubectlApply, registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/**
 * What the README says a cluster answers, produced by a real kube-apiserver with the project's CRDs and
 * the chart's webhooks calling `serve`: the blocks and sentences stay what the server says.
 */
describe("README: what the cluster answers, on a real API server", { skip: withoutGo }, () => {
  const cluster = useControlPlane();
  before(async () => {
    const serve = await startLocalServe(cluster());
    await registerChartWebhooks(cluster(), serve);
    await kubectlApply(cluster(), [
      {
        apiVersion: "batch.forkspacer.com/v1",
        kind: "Workspace",
        metadata: { name: "dev-environment", namespace: "default" },
        spec: { type: "kubernetes", hibernated: false, connection: { type: "local" } },
      },
    ]);
  });

  it("kubectl apply --dry-run=server -f examples/modules: the block under Use it in CI", async () => {
    const shown =
      /answers `kubectl apply\s+--dry-run=server -f examples\/modules` with this[^\n]*\n\n```text\n([\s\S]*?)```/.exec(
        readme,
      );
    assert.ok(shown?.[1], "the README shows the cluster's answer for examples/modules");
    const run = await cluster().kubectl(["apply", "--dry-run=server", "-f", "examples/modules"], {
      cwd: root,
    });
    assert.equal(run.code, 1);
    assert.equal(`${run.stdout}${run.stderr}`, shown[1]);
  });

  it("examples/create-invalid-module.json's object: refused by the CRD's rules on the fields the quick start names, no webhook called", async () => {
    const sentence = /the CRD's own CEL rules refuse this object first, on ((?:`[^`]+`(?:, | and )?)+);/.exec(
      readme,
    );
    assert.ok(sentence?.[1], "the quick start says which fields the CRD refuses");
    const named = [...sentence[1].matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    const review = JSON.parse(
      readFileSync(new URL("../../examples/create-invalid-module.json", import.meta.url), "utf8"),
    );
    const object = review.request.object;
    const reply = await cluster().send(
      "POST",
      `/apis/batch.forkspacer.com/v1/namespaces/${object.metadata.namespace}/modules?dryRun=All`,
      object,
    );
    assert.equal(reply.status, 422, reply.body);
    const status = JSON.parse(reply.body) as { details: { causes: { field: string; message: string }[] } };
    assert.deepEqual(
      status.details.causes.map((cause) => cause.field),
      named,
    );
    // The CRD's rules (no webhook is registered here), each naming the rule of ours it enforces.
    assert.deepEqual(
      status.details.causes.map((cause) => /\(rule ([a-z.-]+)\)$/.exec(cause.message)?.[1]),
      ["module.source", "module.release-name"],
      reply.body,
    );
  });
});
