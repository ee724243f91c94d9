import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ruleWarnings, warningAt } from "../../src/admission/warning.js";
import { FieldPath } from "../../src/base/field-path.js";
import { type ExpectedWarning, matchWarnings } from "./match-warnings.js";

const namespace = FieldPath.root("spec").child("helm").child("namespace");
const got = [
  ...ruleWarnings("module.template-warning", [
    warningAt(namespace, "spec.helm.namespace: .x renders <no value>"),
  ]),
  "an update admitted over old problems",
];

/** The failure's message, asserting that it fails. */
function failure(run: () => void): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof assert.AssertionError, String(error));
    return error.message;
  }
  assert.fail("matchWarnings passed");
}

describe("matchWarnings", () => {
  it("passes on the same warnings, in order, field and message compared only when given", () => {
    matchWarnings(got, [
      { rule: "module.template-warning", field: "spec.helm.namespace", message: /renders <no value>$/ },
      { message: "an update admitted over old problems" },
    ]);
    matchWarnings(got, [{ rule: "module.template-warning" }, {}]);
    matchWarnings([], []);
  });

  it("fails on another rule, field, message, order or count, or a text over 120 characters", () => {
    const right: ExpectedWarning[] = [{ rule: "module.template-warning", field: "spec.helm.namespace" }, {}];
    const wrong: ExpectedWarning[][] = [
      [{ ...right[0], rule: "module.chart-version-unset" }, {}],
      [{ ...right[0], field: "spec.helm" }, {}],
      [{ ...right[0], message: "spec.helm.namespace" }, {}],
      [right[0] ?? {}, { rule: "module.template-warning" }],
      [{}, right[0] ?? {}],
      [right[0] ?? {}],
      [...right, {}],
    ];
    for (const expected of wrong) failure(() => matchWarnings(got, expected));
    failure(() => matchWarnings(["x".repeat(121)], [{}]));
    const message = failure(() =>
      matchWarnings(got, [{ ...right[0], rule: "module.chart-version-unset" }, {}]),
    );
    assert.equal(
      message,
      [
        "warnings differ at #0",
        "expected:",
        "  (rule module.chart-version-unset) spec.helm.namespace",
        "  (no rule)",
        "got:",
        '  (rule module.template-warning) spec.helm.namespace message "spec.helm.namespace: .x renders <no value>"',
        '  (no rule) message "an update admitted over old problems"',
      ].join("\n"),
    );
  });
});
