import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validateData } from "../../../src/resources/moduletemplate/data-rules.js";

const messages = (data: Record<string, unknown>) => validateData(data).map(formatFieldError);
const groupVersion =
  'must be group/version (e.g. "operator.kyma-project.io/v1alpha1") or a core version such as "v1"';

describe("spec.data rules", () => {
  it("accepts a custom resource in group/version form, and the core group's v1 (a ConfigMap)", () => {
    assert.deepEqual(messages({ apiVersion: "operator.kyma-project.io/v1alpha1", kind: "Keda" }), []);
    assert.deepEqual(
      messages({ apiVersion: "serverless.kyma-project.io/v1alpha2", kind: "Serverless-Config" }),
      [],
    );
    assert.deepEqual(messages({ apiVersion: "v1", kind: "ConfigMap" }), []);
  });

  it("requires apiVersion and kind, both at once, tagged with their rule ids", () => {
    const errors = validateData({ spec: {} });
    assert.deepEqual(errors.map(formatFieldError), [
      "spec.data.apiVersion: Required value: the group/version of the resource to create",
      "spec.data.kind: Required value: the kind of the resource to create",
    ]);
    assert.deepEqual(
      errors.map((error) => error.rule),
      ["moduletemplate.data-api-version", "moduletemplate.data-kind"],
    );
    assert.deepEqual(messages({ apiVersion: "", kind: "" }).length, 2);
  });

  it("denies an apiVersion that no API server can serve", () => {
    for (const apiVersion of [
      "Operator.Kyma/v1",
      "operator.kyma-project.io/",
      "/v1",
      "a/b/c",
      "kyma.io/1.0",
      "V1",
    ]) {
      assert.deepEqual(messages({ apiVersion, kind: "Keda" }), [
        `spec.data.apiVersion: Invalid value: ${JSON.stringify(apiVersion)}: ${groupVersion}`,
      ]);
    }
    assert.match(
      messages({ apiVersion: 7, kind: "Keda" })[0] ?? "",
      /^spec\.data\.apiVersion: Invalid value: 7: must be of type string$/,
    );
  });

  it("denies an invalid kind name", () => {
    for (const kind of ["1Keda", "Keda Manager", "Keda-", "Keda.v1", "K".repeat(64)]) {
      assert.match(
        messages({ apiVersion: "a.io/v1", kind })[0] ?? "",
        /^spec\.data\.kind: Invalid value: .*: must be a valid kind name/,
      );
    }
  });
});
