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
  it("judges an UPDATE whose old object is not a valid Module without crashing, running the update rules", async () => {
    const kind = createModuleKind({ workspaceExists: () => false });
    const oldObject = { ...helmModule(), spec: { ...helmModule().spec, workspace: null } };
    const changed = helmModule();
    if (changed.spec.helm) changed.spec.helm.releaseName = "renamed";
    const answer = await validate(kind, { ...request, object: changed, oldObject });
    assert.deepEqual(
      answer.status?.details?.causes?.map((cause) => cause.field),
      ["spec.workspace", "spec.helm.releaseName"],
    );
  });

  it("keeps existingRelease immutable when the stored Module fails today's schema (long releaseName, odd status)", async () => {
    const kind = createModuleKind();
    const stored = helmModule();
    if (stored.spec.helm) {
      stored.spec.helm.releaseName = `r${"x".repeat(59)}`;
      stored.spec.helm.existingRelease = { name: "redis", namespace: "data" };
    }
    const oldObject = { ...stored, status: { phase: 42, conditions: "none" } };
    const changed = structuredClone(oldObject);
    if (changed.spec.helm) changed.spec.helm.existingRelease = { name: "postgres", namespace: "data" };
    const answer = await validate(kind, { ...request, object: changed, oldObject });
    assert.equal(answer.allowed, false);
    assert.ok(
      answer.status?.details?.causes?.some(
        (cause) => cause.field === "spec.helm.existingRelease" && /field is immutable/.test(cause.message),
      ),
      JSON.stringify(answer.status),
    );
    const unchanged = await validate(kind, { ...request, object: structuredClone(oldObject), oldObject });
    assert.ok(!answer.status?.details?.causes?.some((c) => c.field === "status"), "ratcheted state errors");
    assert.equal(unchanged.allowed, true, JSON.stringify(unchanged));
  });
});
