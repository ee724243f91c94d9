import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { admissionResponse } from "../../src/admission/answer.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { verdictOf } from "../../src/admission/verdict.js";
import { FieldPath } from "../../src/base/field-path.js";
import { verdictProblems } from "../../src/offline/admit.js";
import { resourceKinds } from "../../src/resources/index.js";

const kind = resourceKinds.find((each) => each.kind === "Module");
assert.ok(kind);
const request: AdmissionRequest = {
  uid: "u-1",
  kind: { group: kind.group, version: kind.version, kind: kind.kind },
  operation: "CREATE",
  name: "m",
  object: { apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, metadata: { name: "m" } },
};
const verdict = verdictOf;

describe("validate reads the answer's fit from the verdict, as the server answers", () => {
  it("an answer over 1 MiB is the server's one code 500 error, a request of another kind its 400", () => {
    const huge = verdict({ patch: [{ op: "add", path: "/spec", value: "p".repeat(1024 * 1024) }] });
    const response = admissionResponse(kind, request, huge);
    assert.equal(response.status?.code, 500);
    assert.deepEqual(verdictProblems("mutating-webhook", kind, request, huge), {
      errors: [
        {
          stage: "mutating-webhook",
          field: FieldPath.empty,
          type: "InternalError",
          message: response.status?.message,
        },
      ],
      warnings: [],
    });
    const other = verdict({ badRequest: "this webhook admits Module only" });
    assert.deepEqual(verdictProblems("validating-webhook", kind, request, other).errors, [
      {
        stage: "validating-webhook",
        field: FieldPath.empty,
        type: "BadRequest",
        message: admissionResponse(kind, request, other).status?.message,
      },
    ]);
  });

  it("a patch that fits is no problem; its warnings are shown as the answer shows them", () => {
    const fits = verdict({
      patch: [{ op: "add", path: "/spec", value: "p".repeat(1000) }],
      warnings: Array.from({ length: 100 }, (_, i) => `warning ${i}: ${"w".repeat(200)}`),
    });
    const problems = verdictProblems("mutating-webhook", kind, request, fits);
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(
      problems.warnings.map((warning) => warning.message),
      admissionResponse(kind, request, fits).warnings,
    );
  });
});
