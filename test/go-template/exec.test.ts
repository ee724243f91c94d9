import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { WorkBudget, WorkBudgetExceeded } from "../../src/budget/work-budget.js";
import { executeTemplate } from "../../src/go-template/exec.js";
import { parseTemplate } from "../../src/go-template/index.js";
import { fromJson, Unsupported } from "../../src/go-template/values.js";
import { execCases, rangeOverInt } from "./exec-cases.js";

interface GoResult {
  ok: boolean;
  error?: string;
  output?: string;
  execError?: string;
}

const expected: { goVersion: string; results: Record<string, GoResult> } = JSON.parse(
  readFileSync(new URL("./exec-expected.json", import.meta.url), "utf8"),
);

/** Our verdict in the oracle's shape; Unsupported (not modelled) as `unsupported`. */
function run(text: string, data: unknown, budget = new WorkBudget()) {
  const parsed = parseTemplate(text, { functions: ["randBase62"] });
  if (!parsed.ok) return { parseError: parsed.error.message };
  try {
    const result = executeTemplate(text, parsed.template.trees, "", fromJson(data) ?? undefined, {
      budget,
      randBase62: (n) => "a".repeat(n),
    });
    return result.ok ? { output: result.output } : { execError: result.error };
  } catch (e) {
    if (e instanceof Unsupported) return { unsupported: e.message };
    throw e;
  }
}

describe("go-template execution table (expected results from Go's text/template)", () => {
  it("has one expected result per case, at least 300 executed", () => {
    assert.deepEqual(Object.keys(expected.results).sort(), execCases.map((c) => c.name).sort());
    const executed = Object.values(expected.results).filter((r) => r.ok);
    assert.ok(executed.length >= 300, `${executed.length} executed`);
  });

  let unsupported = 0;
  for (const c of execCases) {
    it(c.name, () => {
      const go = expected.results[c.name] as GoResult;
      const ours = run(c.text, c.data);
      if (c.go124) {
        assert.deepEqual(ours, { output: c.go124.output }, c.go124.why);
        return;
      }
      if (!go.ok) {
        assert.deepEqual(ours, { parseError: go.error });
        return;
      }
      if ("unsupported" in ours) {
        unsupported++;
        return;
      }
      if (go.execError && rangeOverInt.test(go.execError) && ours.execError !== go.execError) {
        // Go 1.24 ranges over integers; Go 1.19 (the oracle) does not.
        assert.ok(
          "output" in ours ||
            /can't use -?\d+ to iterate over more than one variable$/.test(ours.execError ?? ""),
          JSON.stringify(ours),
        );
        return;
      }
      assert.deepEqual(
        ours,
        go.execError !== undefined ? { execError: go.execError } : { output: go.output },
      );
    });
  }

  it("models nearly every case (few are Unsupported)", () => {
    assert.ok(unsupported <= 10, `${unsupported} cases not modelled`);
  });
});

describe("go-template execution is bounded by the work budget", () => {
  it("charges range iterations and output, and stops when the budget runs out", () => {
    const data = { list: Array.from({ length: 1000 }, (_, i) => i) };
    const text = "{{range .list}}{{range $.list}}{{.}}{{end}}{{end}}";
    const parsed = parseTemplate(text);
    assert.ok(parsed.ok);
    const budget = new WorkBudget(100_000);
    assert.throws(
      () =>
        executeTemplate(text, parsed.template.trees, "", data, { budget, randBase62: (n) => "a".repeat(n) }),
      WorkBudgetExceeded,
    );
  });

  it("charges randBase62 by its length before making the string", () => {
    const text = "{{randBase62 100000000000}}";
    const parsed = parseTemplate(text, { functions: ["randBase62"] });
    assert.ok(parsed.ok);
    assert.throws(
      () =>
        executeTemplate(
          text,
          parsed.template.trees,
          "",
          {},
          {
            budget: new WorkBudget(),
            randBase62: () => assert.fail("called"),
          },
        ),
      WorkBudgetExceeded,
    );
  });
});
