import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const probe = fileURLToPath(new URL("../support/review-retention-probe.ts", import.meta.url));

describe("a judged review leaves nothing of itself for the young generation's collection", () => {
  it("keeps no parsed object alive past the review through a module's memo (WeakMap values are alive while their keys are young)", () => {
    // Before WorkBudget.memo and the pairwise sameJson memo: 18-51% of what these reviews allocated
    // was still alive after a minor GC (a verdict remembered by its object, a comparison by its first
    // object holding the second), copied and promoted; after: 2-5%.
    const run = spawnSync(
      process.execPath,
      [
        "--min-semi-space-size=64",
        "--max-semi-space-size=64",
        "--import",
        "tsx",
        probe,
        "ModuleReleaseMeta spec.channels 30000 CREATE",
        "ModuleReleaseMeta spec.kymaSelector.matchLabels 20000 KEPT",
        "Module spec.helm.values 10000 KEPT",
      ],
      { encoding: "utf8" },
    );
    assert.equal(run.status, 0, run.stderr);
    const results = JSON.parse(run.stdout) as { review: string; allocated: number; alive: number }[];
    assert.equal(results.length, 3);
    for (const { review, allocated, alive } of results) {
      // Each review is a real one: megabytes made while judging it.
      assert.ok(allocated > 4 * 1024 * 1024, `${review}: allocated ${allocated}`);
      assert.ok(alive < allocated / 10, `${review}: ${alive} of ${allocated} bytes alive after a minor GC`);
    }
  });
});
