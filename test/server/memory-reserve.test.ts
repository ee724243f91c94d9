import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryBudget } from "../../src/server/memory-budget.js";

const MiB = 1024 * 1024;

describe("memory budget's reserve for ordinary reviews (issue 41)", () => {
  it("keeps an eighth of the room (16 MiB at most) from large bodies, which small ones may take", () => {
    // 100 MiB for bodies beside the workers: large bodies stop 12.5 MiB short of it.
    const budget = new MemoryBudget(228 * MiB, () => ({ bytes: 128 * MiB, what: "one worker" }));
    const large = Array.from({ length: 20 }, () => budget.share());
    const held = large.filter((share) => share.take(7 * MiB)).length;
    assert.equal(held, 12, "twelve 7 MiB bodies fit in 87.5 MiB, a thirteenth would not");
    const small = Array.from({ length: 200 }, () => budget.share());
    assert.equal(small.filter((share) => share.take(64 * 1024)).length, 200, "ordinary reviews still get in");
    // A body that grows past 64 KiB is a large one from then on: no more of the reserve for it.
    assert.equal(small[0]?.take(1), false);
    for (const share of [...large, ...small]) share.release();
    assert.equal(budget.held, 0);
  });

  it("gives no body more than the room", () => {
    const budget = new MemoryBudget(129 * MiB, () => ({ bytes: 128 * MiB, what: "one worker" }));
    const shares = Array.from({ length: 17 }, () => budget.share());
    assert.equal(shares.filter((share) => share.take(64 * 1024)).length, 16);
    assert.equal(budget.held, MiB);
  });
});
