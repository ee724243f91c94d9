import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import type { CustomStateCheck } from "../../../src/generated/moduletemplate.js";
import { validateStateChecks } from "../../../src/resources/moduletemplate/state-checks.js";

const check = (jsonPath: string, value: string, mappedState: CustomStateCheck["mappedState"]) => ({
  jsonPath,
  value,
  mappedState,
});
const messages = (checks: CustomStateCheck[]) => validateStateChecks(checks).map(formatFieldError);

describe("spec.customStateCheck rules", () => {
  it("accepts dotted paths, and several states for one path when the values differ", () => {
    assert.deepEqual(
      messages([
        check("status.health", "green", "Ready"),
        check("status.health", "red", "Error"),
        check("status.health", "green", "Ready"),
        check("status.moduleState", "x", "Warning"),
        check("state", "x", "Processing"),
      ]),
      [],
    );
  });

  it("denies jsonPaths the lifecycle manager cannot walk", () => {
    for (const jsonPath of [
      ".status.health",
      "status..health",
      "status.health.",
      "{.status.health}",
      "$.status",
      "status.conditions[0].type",
      "status health",
    ]) {
      assert.deepEqual(messages([check(jsonPath, "x", "Ready")]), [
        `spec.customStateCheck[0].jsonPath: Invalid value: ${JSON.stringify(jsonPath)}: must be a dotted field path such as status.health (no leading '.', '{}', '$', '[i]' or '*')`,
      ]);
    }
    assert.deepEqual(messages([check("", "x", "Ready")]), [
      "spec.customStateCheck[0].jsonPath: Required value: a dotted field path, e.g. status.health",
    ]);
  });

  it("denies two checks on the same jsonPath and value that map to different states, naming both", () => {
    assert.deepEqual(
      messages([
        check("status.health", "green", "Ready"),
        check("status.health", "red", "Error"),
        check("status.health", "green", "Warning"),
        check("status.health", "green", "Error"),
      ]),
      [
        'spec.customStateCheck[2].mappedState: Invalid value: "Warning": contradicts spec.customStateCheck[0], which maps the same jsonPath and value to "Ready"',
        'spec.customStateCheck[3].mappedState: Invalid value: "Error": contradicts spec.customStateCheck[0], which maps the same jsonPath and value to "Ready"',
      ],
    );
  });
});
