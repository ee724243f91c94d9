import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  jsonKind,
  outputJsonKinds,
  type PrintedValue,
  parseTemplate,
} from "../../../src/go/template/index.js";
import { fmtDifferential, generateFmt } from "../../support/differential/fmt.js";
import { describeDisagreements, Random } from "../../support/differential/random.js";
import { generateTemplate, templateDifferential } from "../../support/differential/template.js";
import { type TemplateAnswer, useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { execCases } from "./exec-cases.js";
import { fidelityCases } from "./fidelity-cases.js";

/** What printing the data at `path` gives, as Go prints the JSON-decoded values. */
function printedFrom(data: Record<string, unknown>): (path: string[]) => PrintedValue {
  return (path) => {
    let value: unknown = data;
    for (const key of path) {
      if (typeof value !== "object" || value === null || !(key in value))
        return { kind: "text", text: "<no value>" };
      value = (value as Record<string, unknown>)[key];
    }
    return { kind: "text", text: String(value) };
  };
}

/**
 * src/go/template against Go's text/template as the Forkspacer operator runs it (Go 1.24.9, its
 * FuncMap, whole numbers as ints): the fidelity and execution tables, and programs generated from Go's
 * template grammar (test/support/template-grammar.ts).
 */
describe("text/template: src/go/template against Go", { skip: withoutGo }, () => {
  const oracle = useGoOracle();

  it("the fidelity table: parse verdicts, messages and defined templates agree", async () => {
    assert.ok(fidelityCases.length >= 150);
    const run = await templateDifferential(oracle.current, fidelityCases);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("the fidelity table: the static output analysis predicts the JSON kind Go's output reads as", async () => {
    const executed = fidelityCases.filter((c) => c.data !== undefined);
    const answers = (await oracle.current.askAll(
      "template",
      executed.map(({ text, data, funcs }) => ({ text, data, ...(funcs ? { funcs } : {}) })),
    )) as TemplateAnswer[];
    executed.forEach((c, i) => {
      const go = answers[i] as TemplateAnswer;
      if (go.output === undefined) return;
      assert.equal(jsonKind(go.output), go.jsonKind, `${c.name}: JSON re-typing of Go's output`);
      const parsed = parseTemplate(c.text, { functions: ["randBase62", ...(c.funcs ?? [])] });
      assert.ok(parsed.ok, c.name);
      const { output } = parsed.template.analysis;
      const resolve = printedFrom(c.data as Record<string, unknown>);
      const kinds = outputJsonKinds(output, resolve);
      assert.ok(
        kinds.has(go.jsonKind as never),
        `${c.name}: predicted ${[...kinds]} for Go's ${go.jsonKind}`,
      );
      if (output.every((p) => p.kind === "text" || p.kind === "field")) {
        const text = output
          .map((p) =>
            p.kind === "text" ? p.text : (resolve(p.kind === "field" ? p.path : []) as { text: string }).text,
          )
          .join("");
        assert.equal(text, go.output, `${c.name}: statically predicted output`);
      }
    });
  });

  it("the execution table: outputs and error texts agree, and nearly every case is modelled", async () => {
    assert.ok(execCases.length >= 600);
    const run = await templateDifferential(oracle.current, execCases);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
    assert.ok(run.unsupported <= 10, `${run.unsupported} cases not modelled`);
  });

  it("Go's fmt: 2,000 generated printf formats and arguments agree, and only %p and %w of a map or list are not modelled", async () => {
    const random = new Random(43);
    const run = await fmtDifferential(
      oracle.current,
      Array.from({ length: 2000 }, () => generateFmt(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
    assert.ok(run.unsupported <= 20, `${run.unsupported} cases not modelled`);
  });

  it("1,000 programs from Go's template grammar (npm run fuzz:oracle runs more)", async () => {
    const random = new Random(33);
    const run = await templateDifferential(
      oracle.current,
      Array.from({ length: 1000 }, () => generateTemplate(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
