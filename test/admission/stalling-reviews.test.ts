import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { judgeValidation } from "../../src/admission/handler.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { limits } from "../../src/base/limits.js";
import { WorkBudget } from "../../src/budget/work-budget.js";
import { moduleKind } from "../../src/resources/module/index.js";
import { moduleTemplateKind } from "../../src/resources/moduletemplate/index.js";
import { workspaceKind } from "../../src/resources/workspace/index.js";
import { type ExpectedError, matchErrors } from "../support/match-errors.js";
import { stallingReviews } from "../support/stalling-reviews.js";

const kinds: Record<string, ResourceKind> = {
  Module: moduleKind,
  Workspace: workspaceKind,
  ModuleTemplate: moduleTemplateKind,
};

/**
 * What each review of issue 32 now gets, and where: admitted on its merits, denied on its merits with
 * the rule that finds its problem, or denied because a required check ran out of the review's work
 * budget (webhook.work-budget), naming the field and the work. Work units are counted exactly, so the
 * outcome does not depend on the machine; what each costs in CPU is measured by `npm run fuzz`.
 */
const expected: Record<string, { allowed: true } | ExpectedError> = {
  "ten js(printf %999999d) values": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v0$/,
    type: "forbidden",
    detail: /^executing a template exceeds the webhook's work budget/,
  },
  "'{{1}}' 200,000 times in one value": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v$/,
    type: "forbidden",
    detail: /^parsing a template exceeds the webhook's work budget/,
  },
  "1,000 '{{.a}}' in a list nested 990 deep": { allowed: true },
  "200,000 '{{.a}}' in one flat list": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v\[\d+\]$/,
    type: "forbidden",
    detail: /^checking templates exceeds the webhook's work budget/,
  },
  "range 20 of js(printf %999999d), 1 KB": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v0$/,
    type: "forbidden",
    detail: /^executing a template exceeds the webhook's work budget/,
  },
  "urlquery(printf %999999d) in range 20": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v0$/,
    type: "forbidden",
    detail: /^executing a template exceeds the webhook's work budget/,
  },
  "100,000 '{{1}}' strings": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v\[\d+\]$/,
    type: "forbidden",
    detail: /^checking templates exceeds the webhook's work budget/,
  },
  "50,000 templates nested 990 deep": { allowed: true },
  "200 range .config over 20,000 aliases": {
    rule: "webhook.work-budget",
    field: /^config$/,
    type: "forbidden",
    detail: /^compiling the config schema exceeds the webhook's work budget/,
  },
  "a Workspace schedule of 600,000 cron items": { allowed: true },
  "100,000 untyped config items": {
    rule: "webhook.work-budget",
    field: /^config$/,
    type: "forbidden",
    detail: /^compiling the config schema exceeds the webhook's work budget/,
  },
  "a ModuleTemplate UPDATE with 50,000 resources": { allowed: true },
  "range 999999 of range 100 of js(printf %10000d)": {
    rule: "webhook.work-budget",
    field: /^spec\.helm\.values\[0\]\.raw\.v$/,
    type: "forbidden",
    detail: /^executing a template exceeds the webhook's work budget/,
  },
  "define/template recursion": {
    rule: "module.template-exec",
    field: /^spec\.helm\.values\[0\]\.raw\.v$/,
    type: "invalid",
    detail:
      /^template: :1:25: executing "r" at <\{\{template "r" \.\}\}>: exceeded maximum template depth \(100000\)$/,
  },
};

describe("the reviews that killed or stalled the webhook (issue 32) end within the work budget", () => {
  it("has an expectation for each", () => {
    assert.deepEqual(
      stallingReviews()
        .map((r) => r.name)
        .sort(),
      Object.keys(expected).sort(),
    );
  });

  for (const { name, kind, review } of stallingReviews()) {
    it(name, async () => {
      const budget = new WorkBudget();
      const served = kinds[kind];
      assert.ok(served);
      const verdict = await judgeValidation(served, review.request as AdmissionRequest, { budget });
      const want = expected[name];
      assert.ok(want);
      // Admitted within the budget; denied with the one error of the rule that found the problem.
      if ("allowed" in want) assert.ok(budget.spent <= limits.workUnits);
      matchErrors(verdict.errors, "allowed" in want ? [] : [want]);
    });
  }
});
