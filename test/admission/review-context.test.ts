import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { beginReview } from "../../src/admission/review-context.js";
import { WorkBudget } from "../../src/budget/work-budget.js";
import { projectConfig, projectRoot } from "../support/project-compiler-options.js";

/**
 * A review's work budget is made in one place (`beginReview`) and required everywhere below it: a rule
 * called without one must fail `tsc`, never run unbounded on a fresh budget of its own.
 */
const root = projectRoot;
const options = projectConfig().options;

/** Calls a new contributor might write without a budget, one per line, each expected to fail. */
const probeName = join(root, "src/resources/probe-budget.ts");
const probeLines = [
  'import type { ReviewContext } from "../admission/review-context.js";',
  'import type { AdmissionRequest } from "../admission/review.js";',
  'import type { WorkBudget } from "../budget/work-budget.js";',
  'import type { ResourceKind } from "../admission/resource-kind.js";',
  'import { validateTemplates } from "./module/template-rules.js";',
  'import { validateLinks } from "./moduletemplate/link-rules.js";',
  "export function probe(request: AdmissionRequest, budget: WorkBudget, kind: ResourceKind) {",
  "  const withBudget: ReviewContext = { request, budget };",
  "  const without: ReviewContext = { request };",
  "  kind.validator?.validate(request.object, { request });",
  "  validateTemplates(request.object as never);",
  "  validateLinks({});",
  "  return [withBudget, without, validateLinks({}, budget)];",
  "}",
];
/** The lines (1-based) that must fail, and only those. */
const failing = [9, 10, 11, 12];

function compile(): ts.Program {
  const probe = probeLines.join("\n");
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === probeName || fileExists.call(host, name);
  host.readFile = (name) => (name === probeName ? probe : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) =>
    name === probeName
      ? ts.createSourceFile(name, probe, language)
      : getSourceFile.call(host, name, language, ...rest);
  return ts.createProgram({ rootNames: [probeName], options, host });
}

/** Every file of src/ below `dir`, relative to the project. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(root, path)] : [];
  });
}

/** Where `new WorkBudget(...)` is written in a file, read by TypeScript's parser (comments are not code). */
function budgetsMade(file: string): number[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "WorkBudget")
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe("the review context", () => {
  it("a call without a budget does not compile: the context, a kind's validator, the rules", () => {
    const program = compile();
    const source = program.getSourceFile(probeName);
    assert.ok(source);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    const byLine = diagnostics.map((diagnostic) => ({
      line: source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1,
      message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
    }));
    assert.deepEqual(
      byLine.map((d) => d.line),
      failing,
      byLine.map((d) => `${d.line}: ${d.message}`).join("\n"),
    );
    for (const { message } of byLine)
      assert.match(message, /'budget' is missing|Expected 2(-3)? arguments, but got 1/, message);
  });

  it("new WorkBudget( is written in src/ only where a review begins (and in the budget's own parts)", () => {
    const made = sourceFiles(join(root, "src")).flatMap((file) =>
      budgetsMade(file).map((line) => `${file}:${line}`),
    );
    // beginReview: serve's worker and the offline engine's one review per object, both through
    // judgeValidation. WorkBudget.part: a share of an existing budget, spent from it too.
    assert.deepEqual(
      made.map((at) => at.replace(/:\d+$/, "")),
      ["src/admission/review-context.ts", "src/budget/work-budget.ts"],
      made.join("\n"),
    );
  });

  it("begins a review with a budget of its own, or the caller's when it measures one", () => {
    const request = { uid: "u", operation: "CREATE" } as never;
    const first = beginReview(request);
    const second = beginReview(request);
    assert.ok(first.budget instanceof WorkBudget);
    assert.notEqual(first.budget, second.budget, "each review its own budget");
    const measured = new WorkBudget(10);
    assert.equal(beginReview(request, measured).budget, measured);
    assert.equal(first.focus, undefined, "a review begins unfocused");
  });
});
