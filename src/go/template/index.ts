/**
 * Go's text/template language, as the Forkspacer operator uses it: parse a template exactly as Go
 * does (same acceptance, same messages), and find what it reads, calls and can print.
 *
 * ```ts
 * const parsed = parseTemplate("{{ sub .config.replicas 1 }}", { functions: ["randBase62"] });
 * if (!parsed.ok) parsed.error.message; // template: :1: function "sub" not defined
 * ```
 *
 * See README.md in this folder for the fidelity table, the one deliberate difference from Go, and
 * the cost per parse.
 */
import { analyzeTrees, type TemplateAnalysis } from "./analysis.js";
import type { ListNode } from "./nodes.js";
import { type ParseOptions, parseTrees, TemplateParseError } from "./parser.js";

export type { FieldReference, FunctionCall, OutputPart, TemplateAnalysis, TemplateCall } from "./analysis.js";
export { type JsonKind, jsonKind } from "./json-kind.js";
export type * from "./nodes.js";
export { outputJsonKinds, type PrintedValue } from "./output-kinds.js";
export { goBuiltinFunctions, maxNestingDepth, type ParseOptions, TemplateParseError } from "./parser.js";

/** A template Go would accept: its trees by name, and what they read, call and print. */
export interface ParsedTemplate {
  /** The top-level template's name (options.name, default ""). */
  name: string;
  /** Every template of the text by name, the top-level one included (what Go's Templates() lists). */
  trees: ReadonlyMap<string, ListNode>;
  analysis: TemplateAnalysis;
}

export type ParseResult = { ok: true; template: ParsedTemplate } | { ok: false; error: TemplateParseError };

/**
 * `template.New(name).Funcs(functions).Parse(text)`: Go's verdict on `text`. Functions are Go's
 * built-ins plus `options.functions` (for the operator: `randBase62`). Throws nothing on any input
 * but WorkBudgetExceeded, when `options.budget` runs out; time and memory are linear in the text's
 * length, and charged to `options.budget`.
 */
export function parseTemplate(text: string, options: ParseOptions = {}): ParseResult {
  const name = options.name ?? "";
  try {
    const trees = parseTrees(text, options);
    const { budget } = options;
    const charge = budget && ((units: number) => budget.charge(units, "analysing a template"));
    return { ok: true, template: { name, trees, analysis: analyzeTrees(trees, name, charge) } };
  } catch (e) {
    if (e instanceof TemplateParseError) return { ok: false, error: e };
    throw e;
  }
}

/** Whether the operator renders a string at all: it must contain both `{{` and `}}`. */
export const hasTemplate = (value: string): boolean => value.includes("{{") && value.includes("}}");
