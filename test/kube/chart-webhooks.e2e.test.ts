import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Module } from "../../src/generated/module.js";
import {
  kubectlApply,
  type LocalServe,
  type RegisteredWebhooks,
  registerChartWebhooks,
  startLocalServe,
} from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";

type Anything = any;
const namespace = "team-a";

/** A valid helm Module of team-a (its Workspace exists), without a release name: the webhook names it. */
function teamModule(name: string, edit: (module: Anything) => void = () => undefined): Module {
  const module = helmModule() as Anything;
  module.metadata = { name, namespace };
  module.spec.workspace = { name: "dev-environment", namespace };
  delete module.spec.helm.releaseName;
  edit(module);
  return module;
}

/**
 * The chart's webhook configurations registered in a real API server, calling `serve` on this machine:
 * writes go through the server's whole chain (decoding and field validation, pruning, defaulting, the
 * mutating webhook, schema, CEL, ratcheting, the validating webhook), from kubectl as users run it:
 * client-side and server-side apply, strict, warning and ignoring field validation, create and update.
 */
describe("the chart's webhooks in a real API server, calling serve", { skip: withoutGo }, () => {
  const cluster = useControlPlane();
  let serve: LocalServe;
  let webhooks: RegisteredWebhooks;

  const kubectl = (args: string[], object?: object) =>
    cluster().kubectl(args, object ? { input: JSON.stringify(object) } : {});
  const stored = async (name: string) => {
    const get = await kubectl(["get", "module", name, "-n", namespace, "-o", "json"]);
    assert.equal(get.code, 0, get.stderr);
    return JSON.parse(get.stdout);
  };
  /** serve's log lines for one object (it logs a review after answering: wait for the count). */
  const reviewsOf = async (name: string, count: number) => {
    const logged = () =>
      serve.logs.filter((line) => line.msg === "admission review" && line.object === `${namespace}/${name}`);
    await eventually(`serve has logged ${count} reviews of ${name}`, () => logged().length >= count);
    return logged().map((line) => `${line.operation} ${line.path} ${line.allowed ? "allowed" : "denied"}`);
  };

  before(async () => {
    serve = await startLocalServe(cluster());
    webhooks = await registerChartWebhooks(cluster(), serve);
    await kubectlApply(cluster(), [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
      {
        apiVersion: "batch.forkspacer.com/v1",
        kind: "Workspace",
        metadata: { name: "dev-environment", namespace },
        spec: { type: "kubernetes", hibernated: false, connection: { type: "local" } },
      },
    ]);
  });

  it("registers both configurations with the chart's webhook names, calling serve by URL", async () => {
    const run = await kubectl([
      "get",
      "mutatingwebhookconfigurations,validatingwebhookconfigurations",
      "-o",
      "json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const items = JSON.parse(run.stdout).items as {
      webhooks: { name: string; clientConfig: { url?: string } }[];
    }[];
    const names = items.flatMap((item) => item.webhooks.map((webhook) => webhook.name)).sort();
    assert.deepEqual(names, ["mutate.modules.batch.forkspacer.com", "validate.modules.batch.forkspacer.com"]);
    for (const webhook of items.flatMap((item) => item.webhooks)) {
      assert.match(webhook.clientConfig.url ?? "", new RegExp(`^https://127\\.0\\.0\\.1:${serve.port}/`));
    }
  });

  it("create: defaulted by the CRD, named by the mutating webhook, admitted by the validating one, stored", async () => {
    const created = await kubectl(["create", "-f", "-"], teamModule("redis"));
    assert.equal(created.code, 0, created.stderr);
    const module = await stored("redis");
    assert.match(module.spec.helm.releaseName, /^team-a-[a-z0-9]{11}$/);
    // The CRD's defaults (schemas/module.yaml), applied by the server before the webhooks.
    assert.deepEqual(module.spec.helm.cleanup, { removeNamespace: false, removePVCs: false });
    assert.deepEqual(await reviewsOf("redis", 2), [
      "CREATE /mutate-batch-forkspacer-com-v1-module allowed",
      "CREATE /validate-batch-forkspacer-com-v1-module allowed",
    ]);
  });

  it("a config value out of range: denied by the validating webhook, with its rule", async () => {
    const module = teamModule("too-many", (m) => {
      m.spec.config.replicas = 9;
    });
    const run = await kubectl(["create", "-f", "-"], module);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr.trim(),
      'The Module "too-many" is invalid: spec.config.replicas: Invalid value: 9: must be less than or equal to 5 (rule module.config-value)',
    );
    assert.deepEqual(await reviewsOf("too-many", 2), [
      "CREATE /mutate-batch-forkspacer-com-v1-module allowed",
      "CREATE /validate-batch-forkspacer-com-v1-module denied",
    ]);
  });

  it("both helm and custom: refused by the CRD's CEL rule after the mutating webhook, the validating webhook never called", async () => {
    const module = teamModule("both", (m) => {
      m.spec.custom = { image: "registry.example.com/app:1" };
    });
    const run = await kubectl(["create", "-f", "-"], module);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr.trim(),
      'The Module "both" is invalid: spec.custom: Forbidden: may not be set together with spec.helm (rule module.source)',
    );
    assert.deepEqual(await reviewsOf("both", 1), ["CREATE /mutate-batch-forkspacer-com-v1-module allowed"]);
  });

  describe("an unknown field (a misspelt releaseName)", () => {
    const misspelt = (name: string) =>
      teamModule(name, (m) => {
        m.spec.helm.relaseName = "redis-main";
      });

    it("kubectl apply (client-side, --validate=strict, kubectl's default): refused while decoding, before any webhook", async () => {
      const run = await kubectl(["apply", "-f", "-"], misspelt("strict"));
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr.trim(),
        'Error from server (BadRequest): error when creating "STDIN": Module in version "v1" cannot be handled as a Module: strict decoding error: unknown field "spec.helm.relaseName"',
      );
      assert.equal((await kubectl(["get", "module", "strict", "-n", namespace])).code, 1);
    });

    it("kubectl apply --validate=warn: the server warns, prunes the field, and the webhooks judge the rest", async () => {
      const run = await kubectl(["apply", "--validate=warn", "-f", "-"], misspelt("warned"));
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr.trim(), 'Warning: unknown field "spec.helm.relaseName"');
      const module = await stored("warned");
      assert.equal(module.spec.helm.relaseName, undefined);
      assert.match(module.spec.helm.releaseName, /^team-a-/);
    });

    it("kubectl apply --validate=false: pruned without a word", async () => {
      const run = await kubectl(["apply", "--validate=false", "-f", "-"], misspelt("ignored"));
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.equal((await stored("ignored")).spec.helm.relaseName, undefined);
    });

    it("kubectl apply --server-side (as Flux and Argo CD's ServerSideApply): refused, even with --validate=warn", async () => {
      for (const validate of ["strict", "warn"]) {
        const run = await kubectl(
          ["apply", "--server-side", `--validate=${validate}`, "-f", "-"],
          misspelt("ssa"),
        );
        assert.equal(run.code, 1);
        assert.equal(
          run.stderr.trim(),
          "Error from server: failed to create typed patch object (team-a/ssa; batch.forkspacer.com/v1, Kind=Module): .spec.helm.relaseName: field not declared in schema",
        );
      }
    });
  });

  it("update by server-side apply: a changed release name is refused by the CRD's transition rule", async () => {
    const module = teamModule("applied");
    const first = await kubectl(["apply", "--server-side", "-f", "-"], module);
    assert.equal(first.code, 0, first.stderr);
    const named = (await stored("applied")).spec.helm.releaseName;
    (module.spec.helm as Anything).releaseName = "another-name";
    const changed = await kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], module);
    assert.equal(changed.code, 1);
    assert.equal(
      changed.stderr.trim(),
      'The Module "applied" is invalid: spec.helm.releaseName: Invalid value: field is immutable once set (rule module.release-name-immutable)',
    );
    assert.equal((await stored("applied")).spec.helm.releaseName, named);
  });

  it("ratcheting through the whole chain: a Module stored before the webhooks, now invalid, takes labels and finalizers; a new invalid value is denied", async () => {
    await webhooks.unregister();
    const legacy = teamModule("legacy", (m) => {
      m.spec.helm.releaseName = "legacy";
      m.spec.config.replicas = 9;
    });
    const created = await kubectl(["create", "-f", "-"], legacy);
    assert.equal(created.code, 0, created.stderr);
    webhooks = await registerChartWebhooks(cluster(), serve);
    const label = await kubectl(["label", "module", "legacy", "-n", namespace, "tier=cache"]);
    assert.equal(label.code, 0, label.stderr);
    const finalizer = await kubectl([
      "patch",
      "module",
      "legacy",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({ metadata: { finalizers: ["example.com/cleanup"] } }),
    ]);
    assert.equal(finalizer.code, 0, finalizer.stderr);
    // spec.config is immutable (the CRD's transition rule refuses a change before any webhook): the new
    // invalid value goes into the config schema, which only the validating webhook judges here.
    const config = structuredClone(legacy.config ?? []) as Anything[];
    config[0].option.default = "9.9.9";
    const worse = await kubectl([
      "patch",
      "module",
      "legacy",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({ config }),
    ]);
    assert.equal(worse.code, 1);
    assert.match(worse.stderr, /config\[0\]\.option\.default: Unsupported value: "9\.9\.9"/);
    assert.deepEqual(await reviewsOf("legacy", 6), [
      "UPDATE /mutate-batch-forkspacer-com-v1-module allowed",
      "UPDATE /validate-batch-forkspacer-com-v1-module allowed",
      "UPDATE /mutate-batch-forkspacer-com-v1-module allowed",
      "UPDATE /validate-batch-forkspacer-com-v1-module allowed",
      "UPDATE /mutate-batch-forkspacer-com-v1-module allowed",
      "UPDATE /validate-batch-forkspacer-com-v1-module denied",
    ]);
  });
});
