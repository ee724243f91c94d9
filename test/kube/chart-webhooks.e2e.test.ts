import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type LocalServe, registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";

/**
 * The chart's webhook configurations registered in a real API server, calling `serve` on this machine:
 * a Module created through the server's whole chain is named by the mutating webhook and checked by the
 * validating one.
 */
describe("the chart's webhooks in a real API server, calling serve", { skip: withoutGo }, () => {
  const cluster = useControlPlane();
  let serve: LocalServe;

  before(async () => {
    serve = await startLocalServe(cluster());
    await registerChartWebhooks(cluster(), serve);
  });

  it("registers both configurations with the chart's webhook names, calling serve by URL", async () => {
    const run = await cluster().kubectl([
      "get",
      "mutatingwebhookconfigurations,validatingwebhookconfigurations",
      "-o",
      "json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const items = JSON.parse(run.stdout).items as {
      kind: string;
      webhooks: { name: string; clientConfig: { url?: string } }[];
    }[];
    const names = items.flatMap((item) => item.webhooks.map((webhook) => webhook.name)).sort();
    assert.deepEqual(names, ["mutate.modules.batch.forkspacer.com", "validate.modules.batch.forkspacer.com"]);
    for (const webhook of items.flatMap((item) => item.webhooks)) {
      assert.match(webhook.clientConfig.url ?? "", new RegExp(`^https://127\\.0\\.0\\.1:${serve.port}/`));
    }
  });

  it("a Module created without a release name gets one from the mutating webhook, stored", async () => {
    await cluster().kubectl(["create", "namespace", "team-a"]);
    await cluster().kubectl(["apply", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "batch.forkspacer.com/v1",
        kind: "Workspace",
        metadata: { name: "dev-environment", namespace: "team-a" },
        spec: { type: "kubernetes", hibernated: false, connection: { type: "local" } },
      }),
    });
    const module = helmModule();
    module.metadata = { name: "redis", namespace: "team-a" };
    module.spec.workspace = { name: "dev-environment", namespace: "team-a" };
    if (module.spec.helm) delete module.spec.helm.releaseName;
    const created = await cluster().kubectl(["create", "-o", "json", "-f", "-"], {
      input: JSON.stringify(module),
    });
    assert.equal(created.code, 0, created.stderr);
    const stored = await cluster().kubectl(["get", "module", "redis", "-n", "team-a", "-o", "json"]);
    assert.match(JSON.parse(stored.stdout).spec.helm.releaseName, /^team-a-[a-z0-9]{11}$/);
  });

  it("a Module whose config value is out of range is denied by the validating webhook, naming the field", async () => {
    const module = helmModule();
    module.metadata = { name: "too-many", namespace: "team-a" };
    module.spec.workspace = { name: "dev-environment", namespace: "team-a" };
    module.spec.config = { ...module.spec.config, replicas: 9 };
    const run = await cluster().kubectl(["create", "-f", "-"], { input: JSON.stringify(module) });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr.trim(),
      'The Module "too-many" is invalid: spec.config.replicas: Invalid value: 9: must be less than or equal to 5 (rule module.config-value)',
    );
    // serve logs a review after answering it: the line may arrive after kubectl has printed the answer.
    const logged = () =>
      serve.logs.filter((line) => line.msg === "admission review" && line.object === "team-a/too-many");
    await eventually("serve has logged both reviews", () => logged().length === 2);
    assert.deepEqual(
      logged().map((line) => [line.path, line.operation, line.dryRun, line.allowed]),
      [
        ["/mutate-batch-forkspacer-com-v1-module", "CREATE", false, true],
        ["/validate-batch-forkspacer-com-v1-module", "CREATE", false, false],
      ],
    );
  });
});
