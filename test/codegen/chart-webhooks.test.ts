import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chartWebhooks, chartWebhooksFile } from "../../src/codegen/chart-webhooks.js";
import { chartWebhookKinds } from "../../src/resources/policy-kinds.js";

const root = new URL("../..", import.meta.url).pathname;

describe("the chart's webhook entries, generated from the kind registrations", () => {
  it("name each webhook <verb>.<plural>.<group>, a core kind's after its registration, with its gate", () => {
    const entries = chartWebhooks([
      {
        name: "example",
        group: "example.com",
        version: "v1alpha1",
        plural: "examples",
        scope: "Cluster",
        webhooks: [
          { verb: "mutate", path: "/mutate-example-com-v1alpha1-example" },
          { verb: "validate", path: "/validate-example-com-v1alpha1-example" },
        ],
        chart: { enabledBy: { value: "example.enabled" } },
      },
      {
        name: "some-configmap",
        group: "",
        version: "v1",
        plural: "configmaps",
        scope: "Namespaced",
        webhooks: [{ verb: "validate", path: "/validate-some-configmap" }],
        chart: { object: "some.configMap" },
      },
    ]);
    assert.deepEqual(
      entries.map((e) => [
        e.verb,
        e.name,
        e.path,
        e.rules[0]?.resources[0],
        e.rules[0]?.scope,
        e.enabledBy,
        e.object,
      ]),
      [
        [
          "mutate",
          "mutate.examples.example.com",
          "/mutate-example-com-v1alpha1-example",
          "examples",
          "Cluster",
          { value: "example.enabled" },
          undefined,
        ],
        [
          "validate",
          "validate.examples.example.com",
          "/validate-example-com-v1alpha1-example",
          "examples",
          "Cluster",
          { value: "example.enabled" },
          undefined,
        ],
        [
          "validate",
          "validate.some-configmap.module-admission.forkspacer.com",
          "/validate-some-configmap",
          "configmaps",
          "Namespaced",
          undefined,
          "some.configMap",
        ],
      ],
    );
  });

  it("every registered kind has a validating webhook; the Module, always served, a mutating one too", () => {
    const kinds = chartWebhookKinds(`${root}schemas`);
    for (const kind of kinds)
      assert.ok(
        kind.webhooks.some((w) => w.verb === "validate"),
        kind.name,
      );
    const module = kinds.find((kind) => kind.name === "module");
    assert.deepEqual(
      module?.webhooks.map((w) => w.path),
      ["/mutate-batch-forkspacer-com-v1-module", "/validate-batch-forkspacer-com-v1-module"],
    );
    assert.equal(module?.chart, undefined);
  });

  it("refuses a kind whose chart names a value the chart does not have", () => {
    const kind = {
      name: "example",
      group: "example.com",
      version: "v1",
      plural: "examples",
      scope: "Namespaced" as const,
      webhooks: [{ verb: "validate" as const, path: "/validate-example-com-v1-example" }],
    };
    const values = "example:\n  enabled: false\n";
    const on = (value: string) => [{ ...kind, chart: { enabledBy: { value } } }];
    assert.match(
      chartWebhooksFile(on("example.enabled"), values).content,
      /enabledBy:\n {4}value: example.enabled/,
    );
    assert.throws(
      () => chartWebhooksFile(on("example.enable"), values),
      /kind example: its chart names example.enable, which the chart's values.yaml does not have/,
    );
  });
});
