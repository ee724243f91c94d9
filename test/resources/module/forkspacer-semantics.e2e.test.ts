import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Module } from "../../../src/generated/module.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";
import { customModule, helmModule } from "../../support/modules.js";
import { admissionReview } from "../../support/reviews.js";

/** What the operator accepts and runs is admitted, with a warning where something may go wrong. */
describe("Module config and template semantics as the operator's, over HTTPS", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  const answer = async (object: Module, oldObject?: Module) =>
    (
      await server.post(
        "/validate-batch-forkspacer-com-v1-module",
        admissionReview({ operation: oldObject ? "UPDATE" : "CREATE", object, oldObject }),
      )
    ).json.response;

  it("admits zero-value defaults the operator's CRD writes, warning what an omitted value renders", async () => {
    const module = helmModule();
    module.config = [
      {
        name: "Replicas",
        alias: "replicas",
        integer: { default: 0, min: 1, editable: true, required: false },
      },
      {
        name: "Env",
        alias: "env",
        option: { default: "", values: ["dev"], editable: true, required: false },
      },
    ];
    module.spec.config = { replicas: 2 };
    if (module.spec.helm?.chart.repo) module.spec.helm.chart.repo.version = "21.2.7";
    const response = await answer(module);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    assert.deepEqual(response.warnings, [
      'config[0].integer.default 0 must be greater than or equal to 1: a Module that omits "replicas" renders 0',
      'config[1].option.default "" is not one of the values: a Module that omits "env" renders ""',
    ]);
  });

  it("admits undeclared spec.config keys: a warning for helm, none for custom unless one edit from an alias", async () => {
    const helm = helmModule();
    helm.spec.config = { ...helm.spec.config, replicsa: 2 };
    const helmResponse = await answer(helm);
    assert.equal(helmResponse.allowed, true);
    assert.deepEqual(helmResponse.warnings, [
      'spec.config.replicsa is not declared in the config schema: the operator ignores it; did you mean "replicas"?',
    ]);
    const custom = customModule();
    custom.config = [{ name: "Level", alias: "level", string: { default: "info" } }];
    custom.spec.config = { LOG_FORMAT: "json", leve: "debug" };
    const customResponse = await answer(custom);
    assert.equal(customResponse.allowed, true);
    assert.deepEqual(customResponse.warnings, [
      'spec.config.leve is not declared, but passed to the runner; did you mean "level"?',
    ]);
  });

  it("admits an empty helm namespace (the operator's CLI sends it) and a template reading an undeclared key", async () => {
    const module = helmModule();
    if (!module.spec.helm) throw new Error("helm");
    module.spec.helm.namespace = "";
    module.spec.helm.values = [{ raw: { region: "{{ .config.region }}" } }];
    const response = await answer(module);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    assert.deepEqual(response.warnings, [
      "spec.helm.values[0].raw.region: .config.region is not declared in the config schema: it renders <no value>",
    ]);
  });

  it("denies a multipleOptions value and 2.5 for an integer, saying why", async () => {
    const module = helmModule();
    module.spec.config = { ...module.spec.config, features: ["logging"], replicas: 2.5 };
    const response = await answer(module);
    assert.equal(response.allowed, false);
    assert.deepEqual(
      response.status.details.causes.map(
        (cause: { field: string; message: string }) => `${cause.field}: ${cause.message}`,
      ),
      [
        "spec.config.replicas: Invalid value: 2.5: must be a whole number (the operator would silently use 2) (rule module.config-whole-number)",
        'spec.config.features: Forbidden: the Forkspacer operator v0.1.24 refuses every multipleOptions value ("input is not an string array"); omit it to use the default (rule module.multiple-options-value)',
      ],
    );
  });

  it("admits updates the operator's webhook admits: hibernation, the config schema, a first releaseName", async () => {
    const stored = helmModule();
    if (!stored.spec.helm) throw new Error("helm");
    delete stored.spec.helm.releaseName;
    const updated = structuredClone(stored);
    updated.spec.hibernated = true;
    if (updated.spec.helm) updated.spec.helm.releaseName = "redis-main";
    updated.config?.push({ name: "Extra", alias: "extra", boolean: { default: false } });
    const response = await answer(updated, stored);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
  });
});
