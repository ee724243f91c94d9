import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { booleanLabels, validateBooleanLabels } from "../../../src/resources/moduletemplate/label-rules.js";

describe("operator.kyma-project.io boolean labels", () => {
  it("accepts true and false, and ignores labels it does not know", () => {
    const labels = Object.fromEntries(booleanLabels.map((label, i) => [label, i % 2 ? "true" : "false"]));
    assert.deepEqual(
      validateBooleanLabels({ labels: { ...labels, "operator.kyma-project.io/module-name": "keda" } }),
      [],
    );
    assert.deepEqual(validateBooleanLabels(undefined), []);
  });

  it("denies any other value of each boolean label, and of the is-cluster-scoped annotation", () => {
    const labels = Object.fromEntries(booleanLabels.map((label) => [label, "True"]));
    const errors = validateBooleanLabels({
      labels,
      annotations: { "operator.kyma-project.io/is-cluster-scoped": "yes" },
    }).map(formatFieldError);
    assert.deepEqual(errors, [
      ...booleanLabels.map(
        (label) => `metadata.labels[${label}]: Unsupported value: "True": supported values: "true", "false"`,
      ),
      'metadata.annotations[operator.kyma-project.io/is-cluster-scoped]: Unsupported value: "yes": supported values: "true", "false"',
    ]);
    assert.ok(booleanLabels.includes("operator.kyma-project.io/sync"));
  });
});
