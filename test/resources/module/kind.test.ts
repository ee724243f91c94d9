import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldErrorList } from "../../../src/admission/field-errors.js";
import { judgeValidation, validate } from "../../../src/admission/handler.js";
import type { Verdict } from "../../../src/admission/resource-kind.js";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { beginReview } from "../../../src/admission/review-context.js";
import { createModuleKind } from "../../../src/resources/module/index.js";
import { matchErrors } from "../../support/match-errors.js";
import { denialCases } from "../../support/module-cases.js";
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
    const verdict = await judgeValidation(kind, { ...request, object: changed, oldObject });
    // The Workspace is missing (a state rule), spec.workspace was unset before (null: an update
    // rule, as the operator compares it), and the releaseName changed.
    matchErrors(verdict.errors, [
      { type: "notFound", field: "spec.workspace", rule: "module.workspace-exists" },
      { type: "invalid", field: "spec.workspace", rule: "module.workspace-immutable" },
      { type: "invalid", field: "spec.helm.releaseName", rule: "module.release-name-immutable" },
    ]);
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
    // The old object's schema errors (releaseName's length, status) are ratcheted: only the change denies.
    const verdict = await judgeValidation(kind, { ...request, object: changed, oldObject });
    matchErrors(verdict.errors, [
      { type: "invalid", field: "spec.helm.existingRelease", rule: "module.existing-release-immutable" },
    ]);
    const unchanged = await validate(kind, { ...request, object: structuredClone(oldObject), oldObject });
    assert.equal(unchanged.allowed, true, JSON.stringify(unchanged));
  });
});

describe("the Module validator's focus (ratcheting's look at the old object)", () => {
  const kind = createModuleKind({ workspaceExists: () => false });
  const validator = kind.validator;
  assert.ok(validator);
  const creates = denialCases.filter((c) => c.operation === "CREATE");

  it("finds every error of the rules it names, and gathers no warnings", async () => {
    const rulesSeen = new Set<string>();
    for (const denial of creates) {
      const full: Verdict = await validator.validate(
        denial.object,
        beginReview({ ...request, operation: "CREATE" }),
      );
      assert.ok(full.errors.length > 0, denial.name);
      for (const rule of new Set(full.errors.map((error) => error.rule ?? ""))) {
        rulesSeen.add(rule);
        const focus = { errorsOf: new Set<string>([rule]) };
        const focused: Verdict = await validator.validate(denial.object, {
          ...beginReview({ ...request, operation: "CREATE" }),
          focus,
        });
        const ofRule = (errors: FieldErrorList) => errors.filter((error) => error.rule === rule);
        assert.deepEqual(ofRule(focused.errors), ofRule(full.errors), `${denial.name}: ${rule}`);
        assert.deepEqual(focused.warnings, [], denial.name);
      }
    }
    // Every part of the state rules had an error to find: the property is not vacuous.
    for (const rule of ["module.schema", "module.source", "module.release-name", "module.config-value"])
      assert.ok(rulesSeen.has(rule), `no case for ${rule}: ${[...rulesSeen].join(", ")}`);
    for (const rule of ["module.template-syntax", "module.config-type", "module.workspace-exists"])
      assert.ok(rulesSeen.has(rule), `no case for ${rule}: ${[...rulesSeen].join(", ")}`);
  });

  it("skips the parts whose rules it does not name", async () => {
    const module = helmModule();
    if (module.spec.helm) {
      module.spec.helm.releaseName = "Redis";
      module.spec.helm.values = [{ raw: { replicas: "{{ if }}" } }];
    }
    const full = await validator.validate(module, beginReview({ ...request, operation: "CREATE" }));
    const rules = full.errors.map((error) => error.rule);
    assert.ok(rules.includes("module.template-syntax") && rules.includes("module.release-name"), `${rules}`);
    const focus = { errorsOf: new Set(["module.release-name"]) };
    const focused = await validator.validate(module, {
      ...beginReview({ ...request, operation: "CREATE" }),
      focus,
    });
    assert.deepEqual(
      focused.errors.map((error) => error.rule),
      ["module.release-name"],
    );
  });
});
