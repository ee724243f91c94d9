import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validateData } from "../../../src/resources/moduletemplate/data-rules.js";

const messages = (data: Record<string, unknown>) => validateData(data).map(formatFieldError);

describe("spec.data rules", () => {
  it("accepts a custom resource in group/version form with a valid kind", () => {
    assert.deepEqual(messages({ apiVersion: "operator.kyma-project.io/v1alpha1", kind: "Keda" }), []);
    assert.deepEqual(
      messages({ apiVersion: "serverless.kyma-project.io/v1alpha2", kind: "Serverless-Config" }),
      [],
    );
  });

  it("requires apiVersion and kind, both at once", () => {
    assert.deepEqual(messages({ spec: {} }), [
      "spec.data.apiVersion: Required value: the group/version of the module's custom resource",
      "spec.data.kind: Required value: the kind of the module's custom resource",
    ]);
    assert.deepEqual(messages({ apiVersion: "", kind: "" }).length, 2);
  });

  it("denies an apiVersion that is not group/version", () => {
    for (const apiVersion of [
      "v1",
      "Operator.Kyma/v1",
      "operator.kyma-project.io/",
      "/v1",
      "a/b/c",
      "kyma.io/1.0",
    ]) {
      assert.deepEqual(messages({ apiVersion, kind: "Keda" }), [
        `spec.data.apiVersion: Invalid value: ${JSON.stringify(apiVersion)}: must be in group/version form, e.g. "operator.kyma-project.io/v1alpha1" (a custom resource has a group)`,
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
