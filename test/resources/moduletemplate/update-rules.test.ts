import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validateIdentityUpdate } from "../../../src/resources/moduletemplate/update-rules.js";
import { kedaTemplate } from "../../support/moduletemplates.js";

type Change = { version?: string; moduleName?: string };

function change(from: Change, to: Change): string[] {
  const before = { ...kedaTemplate().spec, ...from };
  const after = { ...kedaTemplate().spec, ...to };
  return validateIdentityUpdate(before, after).map(formatFieldError);
}

const immutable = "a new version is a new ModuleTemplate, named <moduleName>-<version>";

describe("spec.version and spec.moduleName on UPDATE", () => {
  it("allows them unchanged, and an unset field where it was empty", () => {
    assert.deepEqual(change({}, {}), []);
    assert.deepEqual(change({ version: "" }, { version: undefined }), []);
    assert.deepEqual(validateIdentityUpdate(undefined, undefined), []);
  });

  it("denies any change of the version, up or down, set or removed", () => {
    for (const [from, to] of [
      ["1.2.0", "1.2.1"],
      ["1.2.1", "1.2.0"],
      ["1.2.0-rc1", "1.2.0"],
      ["", "1.2.0"],
      ["1.2.0", ""],
    ] as const) {
      assert.deepEqual(
        change({ version: from }, { version: to }),
        [`spec.version: Invalid value: "${to}": field is immutable (was "${from}"): ${immutable}`],
        `${from} -> ${to}`,
      );
    }
  });

  it("denies a changed moduleName, tagged moduletemplate.immutable-identity", () => {
    const errors = validateIdentityUpdate(kedaTemplate().spec, {
      ...kedaTemplate().spec,
      moduleName: "kedas",
    });
    assert.deepEqual(errors.map(formatFieldError), [
      `spec.moduleName: Invalid value: "kedas": field is immutable (was "keda"): ${immutable}`,
    ]);
    assert.equal(errors[0]?.rule, "moduletemplate.immutable-identity");
  });
});
