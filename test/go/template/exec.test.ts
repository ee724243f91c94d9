import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WorkBudget, WorkBudgetExceeded } from "../../../src/budget/work-budget.js";
import { executeTemplate } from "../../../src/go/template/exec.js";
import { parseTemplate } from "../../../src/go/template/index.js";

// What Go's text/template gives on the tables and on generated templates: differential.e2e.test.ts.
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
