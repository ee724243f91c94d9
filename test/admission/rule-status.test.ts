import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { judgeValidation, validate } from "../../src/admission/handler.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { parseRuleActions } from "../../src/admission/rule-actions.js";
import { ruleStatuses } from "../../src/admission/rule-status.js";
import { limits } from "../../src/base/limits.js";
import { moduleKind } from "../../src/resources/module/index.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

/**
 * The webhook's own skips, which `validate` rarely shows (the API server's schema and depth checks
 * refuse such objects first): the structure gate, the depth bound, DELETE. The statuses are derived
 * from the verdict, and the answer the API server gets is the same with or without them.
 */

const requestOf = (object: unknown, operation: AdmissionRequest["operation"] = "CREATE") =>
  admissionReview({ operation, object }).request as AdmissionRequest;

async function statuses(request: AdmissionRequest, ruleAction: string[] = []) {
  const ruleActions = parseRuleActions(ruleAction);
  const verdict = await judgeValidation(moduleKind, request, { ruleActions });
  const rules = ruleStatuses(moduleKind, request, verdict, ruleActions);
  return { verdict, rules, of: (rule: string) => rules.find((status) => status.rule === rule) };
}

describe("rule statuses: what the webhook judged of an object, and what not", () => {
  it("a valid Module: every state rule passes, update-only rules skip on CREATE, and run on UPDATE", async () => {
    const { rules } = await statuses(requestOf(helmModule()));
    const skipped = rules.filter((status) => status.status === "skip");
    assert.ok(skipped.length > 0);
    assert.ok(skipped.every((status) => status.reason === "update-only"));
    assert.ok(rules.filter((status) => status.status !== "skip").every((status) => status.status === "pass"));
    const updated = requestOf(helmModule(), "UPDATE");
    updated.oldObject = helmModule();
    assert.ok((await statuses(updated)).rules.every((status) => status.status === "pass"));
  });

  it("a spec the schema leaves nothing readable of: module.schema fails, the state rules skip at the structure gate", async () => {
    const module = { ...helmModule(), spec: 5 };
    const { verdict, rules, of } = await statuses(requestOf(module));
    assert.equal(verdict.unjudged, "structure-gate");
    assert.equal(of("module.schema")?.status, "fail");
    assert.equal(of("module.unknown-field")?.status, "pass");
    assert.deepEqual(of("module.config-value"), {
      rule: "module.config-value",
      status: "skip",
      reason: "structure-gate",
      message: "not judged: the object does not fit its schema (module.schema) so that no rule can read it",
    });
    const reasons = new Set(rules.filter((s) => s.status === "skip").map((s) => s.reason));
    assert.deepEqual([...reasons].sort(), ["structure-gate", "update-only"]);
    // Only part of it unreadable: the rules judge the rest (no skip at the gate).
    const partly = helmModule() as unknown as { spec: { helm: { namespace: unknown } } };
    partly.spec.helm.namespace = 5;
    const judged = await statuses(requestOf(partly));
    assert.equal(judged.verdict.unjudged, undefined);
    assert.equal(judged.of("module.schema")?.status, "fail");
    assert.equal(judged.of("module.config-value")?.status, "pass");
  });

  it("an object nested too deep, a DELETE, and a rule turned off skip with their reasons", async () => {
    let deep: unknown = "x";
    for (let i = 0; i <= limits.depth; i++) deep = { d: deep };
    const module = helmModule();
    module.spec.config = { ...module.spec.config, deep } as typeof module.spec.config;
    const tooDeep = await statuses(requestOf(module));
    const reasons = new Set(tooDeep.rules.map((status) => status.reason));
    assert.deepEqual([...reasons].sort(), ["too-deep", "update-only"]);

    const deleted = await statuses(requestOf(helmModule(), "DELETE"));
    assert.ok(deleted.rules.every((status) => status.reason === "operation"));

    const denied = helmModule();
    denied.spec.config = { ...denied.spec.config, replicas: 7 };
    const off = await statuses(requestOf(denied), ["module.config-value=off"]);
    assert.equal(off.verdict.errors.length, 0);
    assert.equal(off.of("module.config-value")?.reason, "rule-action-off");
    assert.equal(off.of("webhook.work-budget")?.status, "pass");
  });

  it("the answer the API server gets carries none of it", async () => {
    const module = { ...helmModule(), spec: 5 };
    const response = await validate(moduleKind, requestOf(module));
    assert.deepEqual(Object.keys(response).sort(), ["allowed", "status", "uid"]);
    assert.doesNotMatch(JSON.stringify(response), /unjudged|structure-gate|"skip"/);
  });
});
