import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RE2JS } from "@bufbuild/re2";
import fc from "fast-check";
import { limits } from "../../src/base/limits.js";
import { programSizeBound } from "../../src/regex/program-size.js";
import {
  compileAll,
  compileCounted,
  MatchBudget,
  matchMemoLimit,
  matchMemoSize,
  re2CacheBytes,
  re2CacheLimitBytes,
} from "../../src/regex/re2.js";

describe("RE2 bounds", () => {
  it("refuses a pattern whose program is over the bound, before compiling when the text shows it", () => {
    const huge = ".{1000}".repeat(140);
    const refused = compileCounted(huge);
    assert.ok("error" in refused && refused.overLimit);
    assert.match(refused.error, /more than the 2000 this webhook allows/);
    const justOver = compileCounted(".{1000}.{1000}");
    assert.ok("error" in justOver && /compiles to 2002 RE2 instructions/.test(justOver.error));
    const fine = compileCounted(".{1000}");
    assert.ok(!("error" in fine) && fine.instructions === 1002);
  });

  it("stops compiling a schema's patterns once together they reach the bound", () => {
    const patterns = Array.from({ length: 20 }, (_, i) => `[a-z]{900}${i}`);
    const entries = compileAll(patterns);
    const usable = entries.filter((entry) => entry && !("error" in entry)).length;
    assert.equal(usable, Math.ceil(limits.re2.schemaInstructions / 902));
    assert.match((entries.at(-1) as { error: string }).error, /together compile to more than the 10000/);
  });

  it("keeps the compiled-pattern cache within its byte bound", () => {
    for (let i = 0; i < 200; i++) compileCounted(`[a-z]{1000}[0-9]{900}${i}`);
    assert.ok(re2CacheBytes() <= re2CacheLimitBytes, `${re2CacheBytes()} bytes cached`);
    assert.ok(re2CacheBytes() > re2CacheLimitBytes / 2);
  });

  it("estimates a program size no smaller than RE2's for patterns built of repeats and groups", () => {
    const piece = fc.constantFrom(
      "a",
      ".",
      "\\d",
      "[a-z]",
      "(",
      ")",
      "(?:",
      "|",
      "*",
      "{3}",
      "{2,5}",
      "{10,}",
      "{100}",
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), (pieces) => {
        const pattern = pieces.join("");
        let compiled: RE2JS;
        try {
          compiled = new RE2JS(pattern);
        } catch {
          return;
        }
        // Within a few instructions below (simplifications the estimate does not model), never far below.
        assert.ok(programSizeBound(pattern) * 4 >= compiled.re2().prog.numInst(), pattern);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("remembered matches", () => {
  it("answer as matching does, per pattern and input, and stay within their bound", () => {
    const patterns = ["^[a-z]+$", "^[a-z]+", "(?i)^[A-Z]+$", "1:^a", "^a", "a$"];
    const inputs = ["abc", "abc1", "ABC", "1:^aa", "a", "^aa", "", "x".repeat(600)];
    for (let round = 0; round < 3; round++) {
      for (const pattern of patterns) {
        const entry = compileCounted(pattern);
        assert.ok(!("error" in entry));
        for (const input of inputs) {
          assert.equal(
            new MatchBudget().test(entry, input),
            new RE2JS(pattern).test(input),
            `${pattern} ${input}`,
          );
        }
      }
    }
    for (let i = 0; i < 3 * matchMemoLimit; i++) {
      const entry = compileCounted("^[0-9]+$");
      assert.ok(!("error" in entry));
      assert.equal(new MatchBudget().test(entry, String(i)), true);
    }
    assert.ok(matchMemoSize() <= matchMemoLimit, `${matchMemoSize()} remembered`);
  });

  it("still charge the budget, so that a review's verdicts do not depend on what was matched before", () => {
    const entry = compileCounted("^[a-z]+$");
    assert.ok(!("error" in entry));
    const text = "a".repeat(1000);
    assert.equal(new MatchBudget().test(entry, text), true);
    const budget = new MatchBudget((text.length + 1) * entry.instructions);
    assert.equal(budget.test(entry, text), true);
    assert.match(
      String((budget.test(entry, text) as { refused: string }).refused),
      /too long for this pattern/,
    );
  });
});
