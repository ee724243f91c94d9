import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validate } from "../../../src/admission/handler.js";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { createModuleKind } from "../../../src/resources/module/index.js";
import { helmModule } from "../../support/modules.js";

const request: AdmissionRequest = {
  uid: "u",
  kind: { group: "batch.forkspacer.com", version: "v1", kind: "Module" },
  operation: "UPDATE",
};

describe("the Module kind's validator", () => {
  it("judges an UPDATE whose old object is not a valid Module without crashing, skipping the update rules", async () => {
    const kind = createModuleKind({ workspaceExists: () => false });
    const oldObject = { ...helmModule(), spec: { ...helmModule().spec, workspace: null } };
    const changed = helmModule();
    if (changed.spec.helm) changed.spec.helm.releaseName = "renamed";
    const answer = await validate(kind, { ...request, object: changed, oldObject });
    assert.deepEqual(
      answer.status?.details?.causes?.map((cause) => cause.field),
      ["spec.workspace"],
    );
  });
});
