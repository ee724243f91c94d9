import { describe, it } from "node:test";
import { validateData } from "../../../src/resources/moduletemplate/data-rules.js";
import { matchErrors } from "../../support/match-errors.js";

const groupVersion =
  'must be group/version (e.g. "operator.kyma-project.io/v1alpha1") or a core version such as "v1"';

describe("spec.data rules", () => {
  it("accepts a custom resource in group/version form, and the core group's v1 (a ConfigMap)", () => {
    matchErrors(validateData({ apiVersion: "operator.kyma-project.io/v1alpha1", kind: "Keda" }), []);
    matchErrors(
      validateData({ apiVersion: "serverless.kyma-project.io/v1alpha2", kind: "Serverless-Config" }),
      [],
    );
    matchErrors(validateData({ apiVersion: "v1", kind: "ConfigMap" }), []);
  });

  it("requires apiVersion and kind, both at once, tagged with their rule ids", () => {
    const required = [
      {
        type: "required",
        field: "spec.data.apiVersion",
        rule: "moduletemplate.data-api-version",
        detail: "the group/version of the resource to create",
      },
      {
        type: "required",
        field: "spec.data.kind",
        rule: "moduletemplate.data-kind",
        detail: "the kind of the resource to create",
      },
    ] as const;
    matchErrors(validateData({ spec: {} }), required);
    matchErrors(validateData({ apiVersion: "", kind: "" }), required);
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
      matchErrors(validateData({ apiVersion, kind: "Keda" }), [
        {
          type: "invalid",
          field: "spec.data.apiVersion",
          rule: "moduletemplate.data-api-version",
          value: apiVersion,
          detail: groupVersion,
        },
      ]);
    }
    matchErrors(validateData({ apiVersion: 7, kind: "Keda" }), [
      {
        type: "invalid",
        field: "spec.data.apiVersion",
        rule: "moduletemplate.data-api-version",
        value: 7,
        detail: "must be of type string",
      },
    ]);
  });

  it("denies an invalid kind name", () => {
    for (const kind of ["1Keda", "Keda Manager", "Keda-", "Keda.v1", "K".repeat(64)]) {
      matchErrors(validateData({ apiVersion: "a.io/v1", kind }), [
        {
          type: "invalid",
          field: "spec.data.kind",
          rule: "moduletemplate.data-kind",
          value: kind,
          detail: /^must be a valid kind name/,
        },
      ]);
    }
  });
});
