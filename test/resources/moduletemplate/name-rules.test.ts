import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { nameParts, validateNameMatchesSpec } from "../../../src/resources/moduletemplate/name-rules.js";

const lookup = "lifecycle-manager finds the template by that name";

describe("a template's name against spec.moduleName and spec.version", () => {
  it("splits <moduleName>-<version> names, pre-releases included, and nothing else", () => {
    assert.deepEqual(nameParts("keda-1.2.0"), { moduleName: "keda", version: "1.2.0" });
    assert.deepEqual(nameParts("template-operator-2.4.2-e2e-test"), {
      moduleName: "template-operator",
      version: "2.4.2-e2e-test",
    });
    for (const name of [
      "busola-0-11",
      "keda-fast",
      "moduletemplate-template-operator",
      "keda-01.2.0",
      "k8-1.0.0",
      7,
    ]) {
      assert.equal(nameParts(name), undefined, String(name));
    }
  });

  it("admits a name that agrees, a name of another shape, and fields left unset", () => {
    assert.deepEqual(validateNameMatchesSpec("keda-1.2.0", { moduleName: "keda", version: "1.2.0" }), []);
    assert.deepEqual(validateNameMatchesSpec("keda-latest", { moduleName: "keda", version: "1.2.0" }), []);
    assert.deepEqual(validateNameMatchesSpec("keda-1.2.0", { moduleName: "", version: undefined }), []);
  });

  it("denies a spec that disagrees with the name, naming each field, tagged with its rule id", () => {
    const errors = validateNameMatchesSpec("keda-1.2.0", { moduleName: "serverless", version: "1.2.1" });
    assert.deepEqual(errors.map(formatFieldError), [
      `spec.moduleName: Invalid value: "serverless": must be "keda", as metadata.name "keda-1.2.0" (<moduleName>-<version>) says: ${lookup}`,
      `spec.version: Invalid value: "1.2.1": must be "1.2.0", as metadata.name "keda-1.2.0" (<moduleName>-<version>) says: ${lookup}`,
    ]);
    assert.ok(errors.every((error) => error.rule === "moduletemplate.name-matches-spec"));
  });
});
