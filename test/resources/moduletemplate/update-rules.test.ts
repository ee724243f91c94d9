import { describe, it } from "node:test";
import type { FieldErrorList } from "../../../src/admission/field-errors.js";
import { validateIdentityUpdate } from "../../../src/resources/moduletemplate/update-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { kedaTemplate } from "../../support/moduletemplates.js";

type Change = { version?: string; moduleName?: string };

function change(from: Change, to: Change): FieldErrorList {
  const before = { ...kedaTemplate().spec, ...from };
  const after = { ...kedaTemplate().spec, ...to };
  return validateIdentityUpdate(before, after);
}

const immutable = "a new version is a new ModuleTemplate, named <moduleName>-<version>";

describe("spec.version and spec.moduleName on UPDATE", () => {
  it("allows them unchanged, and an unset field where it was empty", () => {
    matchErrors(change({}, {}), []);
    matchErrors(change({ version: "" }, { version: undefined }), []);
    matchErrors(validateIdentityUpdate(undefined, undefined), []);
  });

  it("denies any change of the version, up or down, set or removed", () => {
    for (const [from, to] of [
      ["1.2.0", "1.2.1"],
      ["1.2.1", "1.2.0"],
      ["1.2.0-rc1", "1.2.0"],
      ["", "1.2.0"],
      ["1.2.0", ""],
    ] as const) {
      matchErrors(change({ version: from }, { version: to }), [
        {
          type: "invalid",
          field: "spec.version",
          rule: "moduletemplate.immutable-identity",
          value: to,
          detail: `field is immutable (was "${from}"): ${immutable}`,
        },
      ]);
    }
  });

  it("denies a changed moduleName, tagged moduletemplate.immutable-identity", () => {
    const errors = validateIdentityUpdate(kedaTemplate().spec, {
      ...kedaTemplate().spec,
      moduleName: "kedas",
    });
    matchErrors(errors, [
      {
        type: "invalid",
        field: "spec.moduleName",
        rule: "moduletemplate.immutable-identity",
        value: "kedas",
        detail: `field is immutable (was "keda"): ${immutable}`,
      },
    ]);
  });
});
