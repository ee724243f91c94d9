import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { render } from "../support/chart.js";
import { type LocalServe, localWebhookConfigurations, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";
import { api, apply, applyCrds, ourCrds } from "../support/policy-server.js";

const namespace = "apps";
const collection = `/apis/batch.forkspacer.com/v1/namespaces/${namespace}/modules`;

/** A Module no rule CEL cannot express has anything to say of: no template, no git chart, no regex. */
function plainModule(name: string) {
  const module = helmModule();
  module.metadata = { name, namespace };
  module.config = (module.config ?? []).filter((item) => !item.string);
  module.spec.config = { replicas: 3 };
  if (module.spec.helm) {
    module.spec.helm.chart = {
      repo: { url: "https://charts.example.com", chart: "redis", version: "1.0.0" },
    };
    delete module.spec.helm.values;
    delete module.spec.helm.releaseName;
  }
  return module;
}

/**
 * The chart in its narrowed way on a real API server, its webhooks calling `serve`: the webhooks are
 * called only for what CEL cannot express, and the policies enforce the rest in the API server.
 */
describe("the narrowed webhooks on a real API server, calling serve", { skip: withoutGo }, () => {
  const plane = useControlPlane();
  const values = { nativePolicies: { enabled: true, mode: "narrowed" }, workspaceCheck: { enabled: false } };
  let serve: LocalServe;
  const reviewsOf = (name: string) =>
    serve.logs.filter((log) => log.msg === "admission review" && log.object === `${namespace}/${name}`);

  it("installs our CRDs, the chart's policies and its narrowed webhooks calling serve", async () => {
    await applyCrds(plane(), ourCrds());
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    const served137 = [
      "--kube-version",
      "1.37.2",
      "--api-versions",
      "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
      "--api-versions",
      "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy",
    ];
    await apply(
      plane(),
      (await render(values, served137)).filter((m) => m.kind.includes("AdmissionPolicy")),
    );
    serve = await startLocalServe(plane(), ["--workspace-check", "off"]);
    const configurations = await localWebhookConfigurations(serve, values);
    // The narrowed webhooks of the chart as rendered for a cluster that serves the policies.
    const narrowed = await render(values, served137);
    for (const configuration of configurations) {
      const rendered = narrowed.find((m) => m.kind === configuration.kind);
      configuration.webhooks = (configuration.webhooks as Record<string, unknown>[]).map((webhook, i) => ({
        ...webhook,
        matchConditions: ((rendered?.webhooks ?? []) as Record<string, unknown>[])[i]?.matchConditions,
      }));
    }
    await apply(plane(), configurations);
  });

  it("a Module CEL judges whole is named by the MutatingAdmissionPolicy and judged without a call to the webhook", async () => {
    let created: Awaited<ReturnType<typeof api>> | undefined;
    await eventually(
      "the API server applies the new policies",
      async () => {
        created = await api(plane(), "POST", `${collection}?dryRun=All`, plainModule("plain"));
        return (
          created.status === 201 &&
          (created.body.spec as { helm?: { releaseName?: string } }).helm?.releaseName === "plain"
        );
      },
      60_000,
    );
    const denied = plainModule("plain-bad");
    denied.spec.config = { replicas: 7 };
    const answer = await api(plane(), "POST", `${collection}?dryRun=All`, denied);
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.match(String(answer.body.message), /spec\.config\.replicas: .*\(rule module\.config-value\)/);
    assert.deepEqual(reviewsOf("plain"), [], "the webhooks were not called for it");
    assert.deepEqual(reviewsOf("plain-bad"), []);
  });

  it("a Module with a template calls the validating webhook, which denies what only it can judge", async () => {
    const templated = plainModule("templated");
    if (templated.spec.helm) templated.spec.helm.namespace = "{{ .config.missing | nosuchfunction }}";
    let answer: Awaited<ReturnType<typeof api>> | undefined;
    await eventually(
      "the webhook is called and denies the template",
      async () => {
        answer = await api(plane(), "POST", `${collection}?dryRun=All`, templated);
        return (
          answer.status >= 400 && /rule module\.template-function/.test(JSON.stringify(answer.body.details))
        );
      },
      60_000,
    );
    // serve logs a review after answering it: its line may come a moment after the API server's answer.
    await eventually("serve logs its review", () => reviewsOf("templated").length > 0, 20_000);
  });

  it("a Module with an integer beyond int64 in its config schema is refused by the CRD, the webhook never called", async () => {
    const huge = plainModule("huge");
    huge.config = [
      ...(huge.config ?? []),
      { name: "Huge", alias: "huge", integer: { default: 2 ** 64, editable: true, required: false } },
    ];
    const answer = await api(plane(), "POST", `${collection}?dryRun=All`, huge);
    // The CRD's schema refuses it before any webhook (a number beyond int64 is no integer to it); the
    // narrowed condition (a config int field CEL does not see as an int) is never the only guard.
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.match(
      String(answer.body.message),
      /config\[4\]\.integer\.default in body must be of type integer/,
    );
    assert.deepEqual(reviewsOf("huge"), []);
  });

  it("a Module whose name CEL cannot use as a release name calls the mutating webhook for it", async () => {
    const long = plainModule("m".repeat(60));
    let answer: Awaited<ReturnType<typeof api>> | undefined;
    await eventually(
      "the mutating webhook names it",
      async () => {
        answer = await api(plane(), "POST", `${collection}?dryRun=All`, long);
        return (
          answer.status === 201 &&
          /^apps-[a-z0-9]{11}$/.test(
            String((answer.body.spec as { helm: { releaseName?: string } }).helm.releaseName),
          )
        );
      },
      60_000,
    );
    await eventually(
      "serve logs the mutating review",
      () => reviewsOf("m".repeat(60)).some((log) => String(log.path).startsWith("/mutate")),
      20_000,
    );
  });
});
