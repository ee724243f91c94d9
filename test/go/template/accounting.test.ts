import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { limits } from "../../../src/base/limits.js";
import { WorkBudget, WorkBudgetExceeded } from "../../../src/budget/work-budget.js";
import { costs } from "../../../src/go/template/costs.js";
import { executeTemplate, maxExecDepth } from "../../../src/go/template/exec.js";
import { parseTemplate } from "../../../src/go/template/index.js";
import { fromJson, type GoValue, Unsupported, type Value } from "../../../src/go/template/values.js";
import { templateCase } from "../../support/template-grammar.js";

/** Parses and runs `text` on `data` with `budget` (both charge it): Go's output or error, or what stopped it. */
function run(text: string, data: Value, budget = new WorkBudget()) {
  const parsed = parseTemplate(text, { functions: ["randBase62"], budget });
  if (!parsed.ok) return { parseError: parsed.error.message };
  const result = executeTemplate(text, parsed.template.trees, "", data, {
    budget,
    randBase62: (n) => "a".repeat(n),
  });
  return result.ok ? { output: result.output } : { execError: result.error };
}

/** A list nested `depth` levels deep, the innermost empty (built without recursion). */
function nestedList(depth: number): GoValue {
  let list: GoValue = [];
  for (let i = 1; i < depth; i++) list = [list];
  return list;
}

describe("template recursion ends as Go's does (maxExecDepth)", () => {
  // Go's messages, from go1.26's text/template run on the same templates.
  const endless: [string, string][] = [
    ['{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}', "1:25"],
    ['{{define "r"}}{{if true}}{{template "r" .}}{{end}}{{end}}{{template "r" .}}', "1:36"],
    ['{{define "r"}}{{with 1}}{{template "r" .}}{{end}}{{end}}{{template "r" .}}', "1:35"],
  ];
  for (const [text, at] of endless) {
    it(`${text} fails with Go's error at depth ${maxExecDepth}`, () => {
      assert.deepEqual(run(text, {}), {
        execError: `template: :${at}: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (100000)`,
      });
    });
  }

  it("a recursion 100,000 calls deep ends; one call deeper fails (no JavaScript stack is used up)", () => {
    const text = '{{define "r"}}{{range .}}{{template "r" .}}{{end}}{{end}}{{template "r" .l}}x';
    // Calls are made at depths 0 to n-1 for a list nested n deep; Go refuses a call at depth 100,000.
    // (A range on every level costs more than one review's budget: a larger one, for the depth alone.)
    const large = () => new WorkBudget(10 * limits.workUnits);
    assert.deepEqual(run(text, { l: nestedList(maxExecDepth) }, large()), { output: "x" });
    assert.deepEqual(run(text, { l: nestedList(maxExecDepth + 1) }, large()), {
      execError: `template: :1:36: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (100000)`,
    });
  });

  it("fits the review's budget: Go's error, not the budget, ends the simplest endless recursion", () => {
    const budget = new WorkBudget();
    run(endless[0]?.[0] as string, {}, budget);
    assert.ok(budget.spent < limits.workUnits, `${budget.spent} units`);
  });
});

describe("every built-in pays for what it builds, before a few characters make it long", () => {
  const paidBefore: [string, string][] = [
    ["a printf width", '{{printf "%999999d" 1}}'],
    ["randBase62", "{{randBase62 999999}}"],
    ["js of a long string", '{{js (printf "%999999s" "<")}}'],
    ["urlquery of a long string", '{{urlquery (printf "%999999s" "!")}}'],
    ["html of a long string", '{{html (printf "%999999s" "&")}}'],
  ];
  for (const [what, text] of paidBefore) {
    it(`${what}: a budget of 500,000 units runs out`, () => {
      assert.throws(() => run(text, {}, new WorkBudget(500_000)), WorkBudgetExceeded);
    });
  }

  it("a range of a million empty iterations is paid per iteration", () => {
    const budget = new WorkBudget(Number.MAX_SAFE_INTEGER);
    run("{{range 1000000}}{{end}}", {}, budget);
    assert.ok(budget.spent >= 1_000_000 * costs.iteration);
  });

  it("a continue or break is paid for the frames it leaves, a printed float for its digits worked out", () => {
    const spent = (text: string) => {
      const budget = new WorkBudget(Number.MAX_SAFE_INTEGER);
      run(text, {}, budget);
      return budget.spent;
    };
    // A thousand iterations more, with a continue in each (its node and leaving the body's frames) or
    // without (the texts parse alike: the same lengths).
    const perContinue =
      spent("{{range 2000}}{{continue}}{{end}}") -
      spent("{{range 1000}}{{continue}}{{end}}") -
      (spent("{{range 2000}}{{end}}") - spent("{{range 1000}}{{end}}"));
    assert.equal(perContinue, 1000 * (costs.node + costs.leftIteration));
    // A float printed costs its number's charge more than an integer printed (both print 3 characters).
    assert.equal(spent("{{print 1.5}}") - spent("{{print 100}}"), costs.printedNumber);
  });

  it("a map's keys are sorted once: ranging over it again does not pay for sorting again", () => {
    const config: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) config[`a${i}`] = i;
    const data = fromJson({ config }) as GoValue;
    const first = new WorkBudget(Number.MAX_SAFE_INTEGER);
    run("{{range .config}}{{end}}", data, first);
    const again = new WorkBudget(Number.MAX_SAFE_INTEGER);
    run("{{range .config}}{{end}}", data, again);
    const sorting = costs.sortedKey * 20_000 * Math.ceil(Math.log2(20_001));
    assert.equal(first.spent - again.spent, sorting);
  });

  it("output counts against the review's cap on rendered text", () => {
    const budget = new WorkBudget(Number.MAX_SAFE_INTEGER);
    assert.throws(
      () => run('{{range 4}}{{printf "%999999d" 1}}{{end}}', {}, budget),
      (e) =>
        e instanceof WorkBudgetExceeded &&
        e.allowance === `${limits.renderedChars} characters of template output per review`,
    );
    assert.ok(budget.rendered > limits.renderedChars);
  });
});

describe("generated templates (test/support/template-grammar.ts): bounded work, no crash", () => {
  /** Runs a case; what it returns, or the kind of stop. */
  function judged(text: string, data: unknown, budget: WorkBudget) {
    try {
      return run(text, fromJson(data) ?? undefined, budget);
    } catch (e) {
      if (e instanceof WorkBudgetExceeded) return { outOfWork: true };
      if (e instanceof Unsupported) return { unsupported: true };
      throw e;
    }
  }

  it("light programs stay far within the budget, and pay at least for their text and output", () => {
    fc.assert(
      fc.property(templateCase({ anyData: true }), ({ text, data }) => {
        const budget = new WorkBudget();
        const result = judged(text, data, budget);
        // A program of the grammar's light shapes costs a small share of a review: with margin.
        assert.ok(budget.spent <= limits.workUnits / 20, `${budget.spent} units: ${text}`);
        if ("output" in result) assert.ok(budget.spent >= text.length + (result.output ?? "").length);
      }),
      { numRuns: 300, seed: 32 },
    );
  });

  it("heavy programs end: judged, or stopped where the budget runs out (some of each)", () => {
    const ends = { judged: 0, outOfWork: 0 };
    fc.assert(
      fc.property(templateCase({ heavy: true, maxDepth: 3 }), ({ text, data }) => {
        const result = judged(text, data, new WorkBudget());
        if ("outOfWork" in result) ends.outOfWork++;
        else ends.judged++;
      }),
      { numRuns: 60, seed: 32 },
    );
    assert.ok(ends.judged > 0 && ends.outOfWork > 0, JSON.stringify(ends));
  });
});
