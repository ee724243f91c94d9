import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validateSpecUpdate } from "../../../src/resources/module/update-rules.js";
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
    assert.deepEqual(validateSpecUpdate(helmModule().spec, changed).map(formatFieldError), [
      'spec.helm.releaseName: Invalid value: "other": field is immutable',
    ]);
    const removed = helmModule().spec;
    if (removed.helm) delete removed.helm.releaseName;
    assert.deepEqual(validateSpecUpdate(helmModule().spec, removed).map(formatFieldError), [
      "spec.helm.releaseName: Invalid value: null: field is immutable",
    ]);
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
      validateSpecUpdate(helmModule().spec, adopted).map((e) => e.field),
      ["spec.helm.existingRelease"],
    );
    assert.deepEqual(
      validateSpecUpdate(adopted, helmModule().spec).map((e) => e.field),
      ["spec.helm.existingRelease"],
    );
    const moved = helmModule().spec;
    if (moved.helm) moved.helm.existingRelease = { name: "redis", namespace: "cache" };
    assert.deepEqual(
      validateSpecUpdate(adopted, moved).map((e) => e.field),
      ["spec.helm.existingRelease"],
    );
  });

  it("refuses switching helm to custom and custom to helm", () => {
    assert.deepEqual(validateSpecUpdate(helmModule().spec, customModule().spec).map(formatFieldError), [
      "spec.custom: Forbidden: may not switch a helm Module to custom",
    ]);
    assert.deepEqual(validateSpecUpdate(customModule().spec, helmModule().spec).map(formatFieldError), [
      "spec.helm: Forbidden: may not switch a custom Module to helm",
    ]);
  });
});
