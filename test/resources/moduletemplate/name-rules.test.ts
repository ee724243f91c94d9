import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nameParts, validateNameMatchesSpec } from "../../../src/resources/moduletemplate/name-rules.js";
import { matchErrors } from "../../support/match-errors.js";

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
    matchErrors(errors, [
      {
        type: "invalid",
        field: "spec.moduleName",
        rule: "moduletemplate.name-matches-spec",
        value: "serverless",
        detail: `must be "keda", as metadata.name "keda-1.2.0" (<moduleName>-<version>) says: ${lookup}`,
      },
      {
        type: "invalid",
        field: "spec.version",
        rule: "moduletemplate.name-matches-spec",
        value: "1.2.1",
        detail: `must be "1.2.0", as metadata.name "keda-1.2.0" (<moduleName>-<version>) says: ${lookup}`,
      },
    ]);
  });
});
