import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WorkBudget, WorkBudgetExceeded } from "../../../src/budget/work-budget.js";
import { executeTemplate } from "../../../src/go/template/exec.js";
import { type FmtArg, sprintf } from "../../../src/go/template/fmt.js";
import { parseTemplate } from "../../../src/go/template/index.js";
import { GoFloat } from "../../../src/go/template/values.js";

/** Thrown by a charge asked for more than a few characters at once: what is asked is not yet built. */
class Refused extends Error {}

/**
 * Issue 41, "charge by cost": whatever a few characters of format make long (a width's padding, a
 * precision's zeros or digits or truncation, a string's hex, a composite padded element by element)
 * is charged before it is built, and at least by its length.
 */
const long = "x".repeat(1_200_000);
const cases: [string, FmtArg[]][] = [
  ["%999999d", [1]],
  ["%9999999d", [1]],
  ["%.999999d", [1]],
  ["%0999999x", [255]],
  ["%.999999f", [new GoFloat(2.5)]],
  ["%999999.999999e", [new GoFloat(2.5)]],
  ["%#.999999g", [new GoFloat(1)]],
  ["%.999999x", [new GoFloat(1)]],
  ["%.999999U", [1]],
  ["%*d", [999_999, 1]],
  ["%-*.*x", [999_999, 999_999, 255]],
  ["%.*s", [999_999, long]],
  ["%.999999s", [long]],
  ["%.999999q", [long]],
  ["% #x", [long]],
  ["%999999v", [[1, "a", null]]],
  ["%999999T", [1]],
  ["%999999z", [1]],
];

describe("printf charges what it builds before building it (issue 41)", () => {
  for (const [format, args] of cases) {
    it(`${format} asks for its cost before building it, and pays at least its length`, () => {
      const big = 100_000;
      assert.throws(
        () =>
          sprintf(format, args, (units) => {
            if (units >= big) throw new Refused();
          }),
        Refused,
      );
      let paid = 0;
      const output = sprintf(format, args, (units) => {
        paid += units;
      });
      // What the format makes beyond its arguments' own text is paid for (the caller pays the rest).
      const own = args.reduce<number>((n, a) => n + (typeof a === "string" ? a.length : 16), 0);
      assert.ok(paid + own >= output.length, `${format}: paid ${paid} for ${output.length} characters`);
    });
  }

  it("a float's exact expansion (768 digits of 5e-324, 309 of 1e308) is paid by its digits before it is worked out", () => {
    for (const [format, v] of [
      ["%e", 5e-324],
      ["%.30g", 5e-324],
      ["%.1f", 1e308],
    ] as const) {
      assert.throws(
        () =>
          sprintf(format, [new GoFloat(v)], (units) => {
            if (units >= 2000) throw new Refused();
          }),
        Refused,
        format,
      );
    }
  });

  it("the issue's 90-byte template: every printf's precision paid before it truncates, within the review's budget", () => {
    const text = `{{$x := printf "%999999d" 1}}{{range 6}}{{$y := printf "%.999999s" $x}}{{end}}`;
    const parsed = parseTemplate(text, { functions: ["randBase62"] });
    assert.ok(parsed.ok);
    const budget = new WorkBudget();
    const result = executeTemplate(
      text,
      parsed.template.trees,
      "",
      {},
      { budget, randBase62: (n) => "a".repeat(n) },
    );
    assert.deepEqual(result, { ok: true, output: "" });
    // A million characters padded once and six truncations of a million: at least 7 million units.
    assert.ok(budget.spent >= 7_000_000, `${budget.spent} units`);
    // With a seventh of that, the first printf's width is refused before it is built.
    assert.throws(
      () =>
        executeTemplate(
          text,
          parsed.template.trees,
          "",
          {},
          {
            budget: new WorkBudget(900_000),
            randBase62: (n) => "a".repeat(n),
          },
        ),
      WorkBudgetExceeded,
    );
  });
});
