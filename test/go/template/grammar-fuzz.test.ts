import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { admissionResponse } from "../../../src/admission/answer.js";
import { judgeValidation } from "../../../src/admission/handler.js";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { limits } from "../../../src/base/limits.js";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { Module } from "../../../src/generated/module.js";
import { moduleKind } from "../../../src/resources/module/index.js";
import { fuzzKinds, passesCrd } from "../../support/complexity-fuzz.js";
import { admissionReview } from "../../support/reviews.js";
import { moduleWithTemplates } from "../../support/template-grammar.js";

/**
 * The short run of the template grammar fuzz (`npm run fuzz` is the long one, with CPU bounds):
 * Modules whose templates and config the grammar generates, each judged through the webhook's handler
 * with one review's budget. Bounds are on work units, never on time: every review is answered (no
 * exception, which the server would answer 500), within the budget; a Module of the grammar's light
 * programs (real templates' size) uses at most a twentieth of it; heavy ones end, some judged and some
 * stopped by the budget. Seeds are fixed: a failure names its Module.
 */
const moduleFuzzKind = fuzzKinds().find((kind) => kind.name === "Module");

async function judged(module: Module) {
  const budget = new WorkBudget();
  const review = admissionReview({ operation: "CREATE", object: module });
  const request = review.request as AdmissionRequest;
  const verdict = await judgeValidation(moduleKind, request, { budget });
  // Answered as the webhook answers it (no exception, which the server would answer 500), causes bounded.
  const response = admissionResponse(moduleKind, request, verdict);
  assert.equal(typeof response.allowed, "boolean");
  assert.ok((response.status?.details?.causes?.length ?? 0) <= limits.causes);
  assert.ok(budget.rendered <= limits.renderedChars);
  const outOfWork = verdict.errors.some((error) => error.rule === "webhook.work-budget");
  return { spent: budget.spent, outOfWork };
}

describe("template grammar fuzz, short run (issue 32)", () => {
  it("generated Modules pass the Module CRD (what anyone who may create Modules can send)", () => {
    for (const module of fc.sample(moduleWithTemplates({ heavy: true }), { numRuns: 50, seed: 1 }))
      assert.ok(
        passesCrd(moduleFuzzKind as NonNullable<typeof moduleFuzzKind>, module),
        JSON.stringify(module),
      );
  });

  it("light programs: each review answered within a twentieth of the budget", async () => {
    let worst = 0;
    await fc.assert(
      fc.asyncProperty(moduleWithTemplates({ templates: 4 }), async (module) => {
        const { spent, outOfWork } = await judged(module);
        assert.ok(
          !outOfWork && spent <= limits.workUnits / 20,
          `${spent} units: ${JSON.stringify(module.spec.helm?.values)}`,
        );
        worst = Math.max(worst, spent);
      }),
      { numRuns: 150, seed: 32 },
    );
    assert.ok(worst > 0);
  });

  it("heavy programs: each review answered, some judged on their merits and some stopped by the budget", async () => {
    const ends = { judged: 0, outOfWork: 0 };
    await fc.assert(
      fc.asyncProperty(moduleWithTemplates({ heavy: true, maxDepth: 3, templates: 2 }), async (module) => {
        const { outOfWork } = await judged(module);
        if (outOfWork) ends.outOfWork++;
        else ends.judged++;
      }),
      { numRuns: 40, seed: 32 },
    );
    assert.ok(ends.judged > 0 && ends.outOfWork > 0, JSON.stringify(ends));
  });
});
