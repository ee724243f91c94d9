import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { judgeValidation } from "../../../src/admission/handler.js";
import { beginReview } from "../../../src/admission/review-context.js";
import { createModuleKind } from "../../../src/resources/module/index.js";
import { validateWorkspaceReference } from "../../../src/resources/module/workspace-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { customModule } from "../../support/modules.js";
import { admissionReview, clone } from "../../support/reviews.js";

const known = new Set(["default/dev-environment", "prod/shared"]);
const lookup = (namespace: string, name: string) => known.has(`${namespace}/${name}`);
const { request } = admissionReview({ operation: "CREATE", object: customModule() }) as Required<
  ReturnType<typeof admissionReview>
>;

describe("spec.workspace must name an existing Workspace", () => {
  it("reports a missing one as apimachinery's Not found, the namespace defaulting to default", () => {
    const errors = validateWorkspaceReference({ name: "nope" }, lookup);
    // Untagged: the kind tags them module.workspace-exists (below).
    matchErrors(errors, [{ type: "notFound", field: "spec.workspace", value: "default/nope" }]);
  });

  it("finds an existing one, in the namespace given or in default", () => {
    assert.deepEqual(validateWorkspaceReference({ name: "dev-environment" }, lookup), []);
    assert.deepEqual(validateWorkspaceReference({ name: "shared", namespace: "prod" }, lookup), []);
    assert.equal(validateWorkspaceReference({ name: "shared" }, lookup).length, 1);
  });

  it("is not checked when the Module kind is built without a lookup", async () => {
    const module = customModule();
    module.spec.workspace = { name: "nope" };
    const verdict = await createModuleKind().validator?.validate(module, beginReview(request));
    assert.deepEqual(verdict?.errors, []);
  });

  it("on UPDATE, ratcheting spares an unchanged reference: a Module whose Workspace is gone can still lose its finalizer", async () => {
    const kind = createModuleKind({ workspaceExists: lookup });
    const orphan = customModule();
    orphan.spec.workspace = { name: "gone" };
    const finalizerRemoved = clone(orphan);
    finalizerRemoved.metadata = { ...finalizerRemoved.metadata, finalizers: [] };
    const update = (object: unknown) =>
      judgeValidation(
        kind,
        admissionReview({ operation: "UPDATE", object, oldObject: orphan }).request as never,
      );
    const admitted = await update(finalizerRemoved);
    matchErrors(admitted.errors, []);
    assert.equal(admitted.ratcheted, true);
    const moved = clone(orphan);
    moved.spec.workspace = { name: "also-gone", namespace: "prod" };
    const denied = await update(moved);
    matchErrors(denied.errors, [
      { type: "notFound", field: "spec.workspace", rule: "module.workspace-exists", value: "prod/also-gone" },
      {
        type: "invalid",
        field: "spec.workspace",
        rule: "module.workspace-immutable",
        value: { name: "also-gone", namespace: "prod" },
        detail: "field is immutable",
      },
    ]);
  });
});
