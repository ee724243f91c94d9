import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { limits } from "../../src/base/limits.js";
import { fuzzKinds, growthsOf, measure, warmUp } from "../support/complexity-fuzz.js";
import { withoutCorpus } from "../support/corpus.js";

// The short run of the complexity fuzz (`npm run fuzz` is the full one, to the body cap, with its
// figures): every array, map and string field of every kind grown to 10 and 1,000, each answered with
// a bounded, well-formed verdict. Timing is reported, never asserted (the machine is shared).
describe("complexity fuzz, short run (issue 21)", () => {
  for (const kind of fuzzKinds()) {
    const skip = kind.readsCorpus && withoutCorpus;
    it(`${kind.name}: every field grown to 10 and 1,000 gets a bounded verdict`, { skip }, async (t) => {
      await warmUp(kind);
      const growths = growthsOf(kind);
      assert.ok(growths.length > 0);
      let worst = { cpuMs: 0, at: "" };
      for (const growth of growths) {
        for (const n of [10, 1000]) {
          const result = await measure(kind, growth, n);
          const { response } = result;
          assert.equal(typeof response.allowed, "boolean", `${result.field} × ${n}`);
          assert.ok(
            (response.status?.details?.causes?.length ?? 0) <= limits.causes,
            `${result.field} × ${n}`,
          );
          if (!response.allowed)
            assert.ok(response.status?.message, `${result.field} × ${n}: a denial says why`);
          if (result.cpuMs > worst.cpuMs) worst = { cpuMs: result.cpuMs, at: `${result.field} × ${n}` };
        }
      }
      t.diagnostic(`${growths.length} fields; most CPU ${worst.cpuMs.toFixed(1)} ms (${worst.at})`);
    });
  }
});
