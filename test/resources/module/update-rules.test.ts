import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Module } from "../../../src/generated/module.js";
import { validateSpecUpdate } from "../../../src/resources/module/update-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { customModule, helmModule } from "../../support/modules.js";

describe("Module update rules", () => {
  it("allows an unchanged Module and changes elsewhere", () => {
    const changed = helmModule().spec;
    changed.hibernated = true;
    assert.deepEqual(validateSpecUpdate(helmModule().spec, changed), []);
  });

  it("refuses a changed or removed releaseName", () => {
    const changed = helmModule().spec;
    if (changed.helm) changed.helm.releaseName = "other";
    const immutable = (value: string | null) =>
      ({
        type: "invalid",
        field: "spec.helm.releaseName",
        rule: "module.release-name-immutable",
        value,
        detail: "field is immutable",
      }) as const;
    matchErrors(validateSpecUpdate(helmModule().spec, changed), [immutable("other")]);
    const removed = helmModule().spec;
    if (removed.helm) delete removed.helm.releaseName;
    matchErrors(validateSpecUpdate(helmModule().spec, removed), [immutable(null)]);
  });

  it("allows setting a releaseName on a Module that had none", () => {
    const old = helmModule().spec;
    if (old.helm) delete old.helm.releaseName;
    assert.deepEqual(validateSpecUpdate(old, helmModule().spec), []);
  });

  it("refuses adding, changing or removing existingRelease; an absent namespace equals default", () => {
    const adopted = helmModule().spec;
    if (adopted.helm) adopted.helm.existingRelease = { name: "redis" };
    const sameWithDefault = helmModule().spec;
    if (sameWithDefault.helm) sameWithDefault.helm.existingRelease = { name: "redis", namespace: "default" };
    assert.deepEqual(validateSpecUpdate(adopted, sameWithDefault), []);
    assert.deepEqual(
      validateSpecUpdate(helmModule().spec, adopted).map((e) => String(e.field)),
      ["spec.helm.existingRelease"],
    );
    assert.deepEqual(
      validateSpecUpdate(adopted, helmModule().spec).map((e) => String(e.field)),
      ["spec.helm.existingRelease"],
    );
    const moved = helmModule().spec;
    if (moved.helm) moved.helm.existingRelease = { name: "redis", namespace: "cache" };
    assert.deepEqual(
      validateSpecUpdate(adopted, moved).map((e) => String(e.field)),
      ["spec.helm.existingRelease"],
    );
  });

  it("refuses switching helm to custom and custom to helm", () => {
    const withoutConfig = (module: Module) => ({ ...module.spec, config: undefined });
    matchErrors(validateSpecUpdate(withoutConfig(helmModule()), withoutConfig(customModule())), [
      {
        type: "invalid",
        field: "spec.helm",
        rule: "module.source-immutable",
        value: null,
        detail: "field cannot be removed once the object is created",
      },
      {
        type: "invalid",
        field: "spec.custom",
        rule: "module.source-immutable",
        value: { image: "my-registry/custom-app:v1.0.0", permissions: ["workspace"] },
        detail: "field cannot be added once the object is created",
      },
    ]);
    assert.deepEqual(
      validateSpecUpdate(withoutConfig(customModule()), withoutConfig(helmModule())).map((error) =>
        String(error.field),
      ),
      ["spec.helm", "spec.custom"],
    );
  });

  it("keeps immutable what the operator's webhook keeps immutable, each with its rule id", () => {
    const before = helmModule();
    const after = helmModule();
    after.spec.workspace = { name: "other", namespace: "default" };
    after.spec.config = { ...after.spec.config, replicas: 4 };
    if (!after.spec.helm) throw new Error("helm");
    after.spec.helm.namespace = "cache";
    after.spec.helm.outputs = [{ name: "host", valueFrom: { secret: { name: "s", key: "k" } } }];
    assert.deepEqual(
      validateSpecUpdate(before.spec, after.spec).map((error) => [String(error.field), error.rule]),
      [
        ["spec.workspace", "module.workspace-immutable"],
        ["spec.config", "module.config-immutable"],
        ["spec.helm.namespace", "module.helm-namespace-immutable"],
        ["spec.helm.outputs", "module.outputs-immutable"],
      ],
    );
    const custom = customModule();
    const retagged = customModule();
    if (!retagged.spec.custom) throw new Error("custom");
    retagged.spec.custom.image = "my-registry/custom-app:v2";
    assert.deepEqual(
      validateSpecUpdate(custom.spec, retagged.spec).map((error) => [String(error.field), error.rule]),
      [["spec.custom.image", "module.custom-image-immutable"]],
    );
  });

  it("compares with the API server's defaults filled in, and lets the namespace follow an adopted release", () => {
    const before = helmModule();
    const after = helmModule();
    if (!before.spec.helm || !after.spec.helm) throw new Error("helm");
    before.spec.workspace = { name: "dev-environment" };
    delete before.spec.helm.namespace;
    after.spec.helm.namespace = "default";
    before.spec.helm.outputs = [{ name: "o", valueFrom: { secret: { name: "s", key: "k" } } }];
    after.spec.helm.outputs = [
      { name: "o", valueFrom: { secret: { name: "s", key: "k", namespace: "default" } } },
    ];
    assert.deepEqual(validateSpecUpdate(before.spec, after.spec), []);
    before.spec.helm.existingRelease = { name: "redis", namespace: "cache" };
    after.spec.helm.existingRelease = { name: "redis", namespace: "cache" };
    before.spec.helm.namespace = "a";
    after.spec.helm.namespace = "b";
    assert.deepEqual(validateSpecUpdate(before.spec, after.spec), []);
  });
});
