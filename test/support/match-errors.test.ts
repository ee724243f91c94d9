import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { byRule, fieldError } from "../../src/admission/field-errors.js";
import { FieldPath } from "../../src/base/field-path.js";
import { matchErrors } from "./match-errors.js";

const releaseName = FieldPath.root("spec").child("helm").child("releaseName");
const got = [
  ...byRule("module.release-name", [fieldError.invalid(releaseName, "Foo", "a DNS-1035 label must ...")]),
  fieldError.required(FieldPath.root("spec"), "exactly one of spec.helm or spec.custom must be set"),
];

/** The failure's message, asserting that it fails. */
function failure(run: () => void): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof assert.AssertionError, String(error));
    return error.message;
  }
  assert.fail("matchErrors passed");
}

describe("matchErrors", () => {
  it("passes on the same errors, in order, detail and value compared only when given", () => {
    matchErrors(got, [
      { type: "invalid", field: "spec.helm.releaseName", rule: "module.release-name", value: "Foo" },
      { type: "required", field: "spec", detail: /^exactly one of/ },
    ]);
    matchErrors([], []);
  });

  it("fails on another type, field, rule, detail, value, order or count, listing expected and got", () => {
    const right = [
      { type: "invalid", field: "spec.helm.releaseName", rule: "module.release-name" },
      { type: "required", field: "spec" },
    ] as const;
    const wrong = [
      [{ ...right[0], type: "forbidden" }, right[1]],
      [{ ...right[0], field: "spec.helm" }, right[1]],
      [{ ...right[0], rule: "module.source" }, right[1]],
      [right[0], { ...right[1], rule: "module.source" }],
      [{ ...right[0], detail: "a DNS-1035 label" }, right[1]],
      [{ ...right[0], detail: /^must/ }, right[1]],
      [{ ...right[0], value: "foo" }, right[1]],
      [right[1], right[0]],
      [right[0]],
      [...right, right[1]],
    ] as const;
    for (const expected of wrong) failure(() => matchErrors(got, expected));
    const message = failure(() => matchErrors(got, [{ ...right[0], rule: "module.source" }, right[1]]));
    assert.equal(
      message,
      [
        "field errors differ at #0",
        "expected:",
        "  invalid spec.helm.releaseName (rule module.source)",
        "  required spec (no rule)",
        "got:",
        '  invalid spec.helm.releaseName (rule module.release-name) value "Foo" detail "a DNS-1035 label must ..."',
        '  required spec (no rule) detail "exactly one of spec.helm or spec.custom must be set"',
      ].join("\n"),
    );
    assert.match(
      failure(() => matchErrors([], [right[1]])),
      /got:\n {2}\(none\)$/,
    );
    assert.match(
      failure(() => matchErrors(got, [], "case 3")),
      /^case 3: field errors differ at #0\nexpected:\n {2}\(none\)\n/,
    );
  });
});
