import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validateVersionUpdate } from "../../../src/resources/moduletemplate/update-rules.js";
import { kedaTemplate } from "../../support/moduletemplates.js";

function versionChange(from: string | undefined, to: string | undefined): string[] {
  const before = kedaTemplate().spec;
  const after = kedaTemplate().spec;
  before.version = from;
  after.version = to;
  return validateVersionUpdate(before, after).map(formatFieldError);
}

describe("spec.version on UPDATE", () => {
  it("allows the same or a higher version, and setting a first version", () => {
    for (const [from, to] of [
      ["1.2.0", "1.2.0"],
      ["1.2.0", "1.2.1"],
      ["1.2.0-rc1", "1.2.0"],
      ["1.2.0-alpha", "1.2.0-beta"],
      ["1.9.9", "1.10.0"],
      [undefined, "0.0.1"],
      ["", "0.0.1"],
    ] as const) {
      assert.deepEqual(versionChange(from, to), [], `${from} -> ${to}`);
    }
  });

  it("denies a lower version, pre-releases included", () => {
    for (const [from, to] of [
      ["1.2.1", "1.2.0"],
      ["1.10.0", "1.9.9"],
      ["1.2.0", "1.2.0-rc1"],
      ["1.2.0-beta", "1.2.0-alpha"],
      ["1.2.0-rc2", "1.2.0-rc10"],
    ] as const) {
      assert.deepEqual(
        versionChange(from, to),
        [
          `spec.version: Invalid value: "${to}": may not decrease (was "${from}"): a template's version is never decremented`,
        ],
        `${from} -> ${to}`,
      );
    }
  });

  it("denies removing the version", () => {
    assert.deepEqual(versionChange("1.2.0", undefined), [
      'spec.version: Invalid value: "": may not be removed once set (was "1.2.0")',
    ]);
    assert.deepEqual(versionChange("1.2.0", ""), [
      'spec.version: Invalid value: "": may not be removed once set (was "1.2.0")',
    ]);
  });
});
