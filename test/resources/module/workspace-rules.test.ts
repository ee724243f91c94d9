import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validate } from "../../../src/admission/handler.js";
import { createModuleKind } from "../../../src/resources/module/index.js";
import { validateWorkspaceReference } from "../../../src/resources/module/workspace-rules.js";
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
    assert.deepEqual(errors.map(formatFieldError), ['spec.workspace: Not found: "default/nope"']);
  });

  it("finds an existing one, in the namespace given or in default", () => {
    assert.deepEqual(validateWorkspaceReference({ name: "dev-environment" }, lookup), []);
    assert.deepEqual(validateWorkspaceReference({ name: "shared", namespace: "prod" }, lookup), []);
    assert.equal(validateWorkspaceReference({ name: "shared" }, lookup).length, 1);
  });

  it("is not checked when the Module kind is built without a lookup", async () => {
    const module = customModule();
    module.spec.workspace = { name: "nope" };
    const verdict = await createModuleKind().validator?.validate(module, request);
    assert.deepEqual(verdict?.errors, []);
  });

  it("on UPDATE, ratcheting spares an unchanged reference: a Module whose Workspace is gone can still lose its finalizer", async () => {
    const kind = createModuleKind({ workspaceExists: lookup });
    const orphan = customModule();
    orphan.spec.workspace = { name: "gone" };
    const finalizerRemoved = clone(orphan);
    finalizerRemoved.metadata = { ...finalizerRemoved.metadata, finalizers: [] };
    const update = (object: unknown) =>
      validate(kind, admissionReview({ operation: "UPDATE", object, oldObject: orphan }).request as never);
    assert.equal((await update(finalizerRemoved)).allowed, true);
    const moved = clone(orphan);
    moved.spec.workspace = { name: "also-gone", namespace: "prod" };
    const denied = await update(moved);
    assert.deepEqual(
      denied.status?.details?.causes?.map((cause) => `${cause.field}: ${cause.message}`),
      [
        'spec.workspace: Not found: "prod/also-gone" (rule module.workspace-exists)',
        'spec.workspace: Invalid value: {"name":"also-gone","namespace":"prod"}: field is immutable (rule module.workspace-immutable)',
      ],
    );
  });
});
