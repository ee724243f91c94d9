import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validate } from "../../src/admission/handler.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { FieldPath } from "../../src/base/field-path.js";
import { WorkBudget, WorkBudgetExceeded } from "../../src/budget/work-budget.js";
import { closestMatch } from "../../src/validation/suggest.js";

/** A kind whose rule walks every item of `items`, charging one unit per item, and counts its calls. */
function walkingKind(seen: WorkBudget[]): ResourceKind<{ items: number[] }> {
  return {
    group: "example.com",
    version: "v1",
    kind: "Walker",
    validator: {
      validate: (object, { budget }) => {
        seen.push(budget);
        for (const _ of object.items) budget.charge(1, "walking items", FieldPath.root("items"));
        return { errors: [], warnings: [] };
      },
      validateTransition: (_old, _object, { budget }) => {
        seen.push(budget);
        return { errors: [], warnings: [] };
      },
    },
  };
}

const request = (items: number, operation: "CREATE" | "UPDATE" = "CREATE"): AdmissionRequest => ({
  uid: "u",
  kind: { group: "example.com", version: "v1", kind: "Walker" },
  operation,
  object: {
    apiVersion: "example.com/v1",
    kind: "Walker",
    metadata: { name: "w" },
    items: Array(items).fill(0),
  },
  ...(operation === "UPDATE" ? { oldObject: { metadata: { name: "w" }, items: [] } } : {}),
});

describe("the work budget, one per review", () => {
  it("denies a required check that runs out with a Forbidden cause naming the work", async () => {
    const response = await validate(walkingKind([]), request(101), { budget: new WorkBudget(100) });
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 422);
    const cause = response.status?.details?.causes?.[0];
    assert.equal(cause?.reason, "FieldValueForbidden");
    assert.equal(cause?.field, "items");
    assert.match(
      cause?.message ?? "",
      /^Forbidden: walking items exceeds the webhook's work budget \(100 units/,
    );
  });

  it("admits what fits, and passes one budget to every call of one review", async () => {
    const seen: WorkBudget[] = [];
    const response = await validate(walkingKind(seen), request(100), { budget: new WorkBudget(100) });
    assert.equal(response.allowed, true);
    await validate(walkingKind(seen), request(3, "UPDATE"));
    assert.equal(seen.length, 3);
    assert.equal(seen[1], seen[2], "the state and transition rules of one UPDATE share one budget");
    assert.notEqual(seen[0], seen[1], "each review has its own");
  });

  it("lets optional work stop without charging what does not fit", () => {
    const budget = new WorkBudget(10);
    assert.equal(budget.tryCharge(8), true);
    assert.equal(budget.tryCharge(3), false);
    assert.equal(budget.spent, 8);
    assert.throws(() => budget.charge(3, "x"), WorkBudgetExceeded);
  });

  it("gives optional work a part of the budget, spent from the whole", () => {
    const whole = new WorkBudget(100);
    const part = whole.part(30);
    assert.equal(part.tryCharge(20), true);
    assert.equal(part.tryCharge(20), false, "over the part");
    assert.equal(whole.spent, 20);
    whole.charge(75, "required");
    assert.equal(part.tryCharge(8), false, "over the whole");
    assert.equal(whole.spent, 95);
  });

  it("stops a did-you-mean search the budget cannot pay for, and says so", () => {
    const aliases = Array.from({ length: 2000 }, (_, i) => `alias${i}`);
    assert.deepEqual(closestMatch("alias7x", aliases, new WorkBudget()), { match: "alias7" });
    assert.deepEqual(closestMatch("alias7x", aliases, new WorkBudget(5000)), { stopped: true });
  });
});
