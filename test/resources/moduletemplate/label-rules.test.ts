import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { warningText } from "../../../src/admission/warning.js";
import {
  booleanLabels,
  labelWarnings,
  validateClusterScopedAnnotation,
} from "../../../src/resources/moduletemplate/label-rules.js";
import { matchErrors } from "../../support/match-errors.js";

describe("operator.kyma-project.io labels and the is-cluster-scoped annotation", () => {
  it("takes beta and internal in any case, as lifecycle-manager lower-cases them", () => {
    for (const value of ["true", "True", "TRUE", "false", "False", "FALSE"]) {
      const labels = Object.fromEntries(booleanLabels.map((label) => [label, value]));
      assert.deepEqual(labelWarnings({ labels }, "keda"), [], value);
    }
    assert.deepEqual(booleanLabels, ["operator.kyma-project.io/internal", "operator.kyma-project.io/beta"]);
  });

  it("warns (never denies) about a beta or internal value that is neither true nor false", () => {
    assert.deepEqual(
      labelWarnings({ labels: { "operator.kyma-project.io/beta": "yes" } }, undefined).map(warningText),
      ['metadata.labels[operator.kyma-project.io/beta]: "yes" is neither true nor false: read as false'],
    );
  });

  it("no longer judges the sync and mandatory-module labels, which lifecycle-manager does not read", () => {
    const labels = {
      "operator.kyma-project.io/sync": "no",
      "operator.kyma-project.io/mandatory-module": "1",
    };
    assert.deepEqual(labelWarnings({ labels }, "keda"), []);
    assert.deepEqual(validateClusterScopedAnnotation({ labels }), []);
  });

  it("warns when the module-name label differs from spec.moduleName, not when either is unset", () => {
    const labels = { "operator.kyma-project.io/module-name": "keda-manager" };
    assert.deepEqual(labelWarnings({ labels }, "keda").map(warningText), [
      'module-name label "keda-manager" is not spec.moduleName "keda": lifecycle-manager lists the template by the label',
    ]);
    assert.deepEqual(labelWarnings({ labels }, undefined), []);
    assert.deepEqual(labelWarnings({ labels: {} }, "keda"), []);
    assert.deepEqual(
      labelWarnings({ labels: { "operator.kyma-project.io/module-name": "keda" } }, "keda"),
      [],
    );
  });

  it("denies an is-cluster-scoped annotation other than exactly true or false", () => {
    for (const value of ["true", "false"]) {
      assert.deepEqual(
        validateClusterScopedAnnotation({
          annotations: { "operator.kyma-project.io/is-cluster-scoped": value },
        }),
        [],
      );
    }
    const errors = validateClusterScopedAnnotation({
      annotations: { "operator.kyma-project.io/is-cluster-scoped": "True" },
    });
    matchErrors(errors, [
      {
        type: "notSupported",
        field: "metadata.annotations[operator.kyma-project.io/is-cluster-scoped]",
        rule: "moduletemplate.cluster-scoped",
        value: "True",
        detail: 'supported values: "true", "false"',
      },
    ]);
    assert.deepEqual(validateClusterScopedAnnotation(undefined), []);
  });
});
