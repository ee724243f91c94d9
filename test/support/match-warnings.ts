import type { RuleId } from "../../src/admission/rule-catalogue.js";
import { type Warning, warningField, warningRule, warningText } from "../../src/admission/warning.js";
import { matchInOrder, ruleText, textMatches } from "./match-in-order.js";

/**
 * One warning a rule test expects: its rule (a declared id, so a misspelt one fails `tsc`; left out:
 * the warning must have none, as the protocol layer's own notes), and, when given, its field (as
 * rendered, `spec.helm.namespace`) and its text (exact, or a pattern).
 */
export interface ExpectedWarning {
  rule?: RuleId;
  field?: string | RegExp;
  message?: string | RegExp;
}

/**
 * Asserts that `got` are exactly the `expected` warnings, in order, and that each fits the 120
 * characters the API server keeps: the warnings' counterpart of `matchErrors`. On a difference the
 * failure lists both, one warning a line, with the first that differs, after `context` when given.
 */
export function matchWarnings(
  got: readonly Warning[],
  expected: readonly ExpectedWarning[],
  context?: string,
): void {
  matchInOrder(warnings, got, expected, context);
}

/** What the API server keeps of a warning (it drops longer ones). */
const warningChars = 120;

function matches(warning: Warning, want: ExpectedWarning): boolean {
  if (warningRule(warning) !== want.rule) return false;
  if (warningText(warning).length > warningChars) return false;
  if (want.field !== undefined && !textMatches(warningField(warning)?.toString() ?? "", want.field))
    return false;
  return want.message === undefined || textMatches(warningText(warning), want.message);
}

function expectedLine(want: ExpectedWarning): string {
  const field = want.field === undefined ? "" : ` ${String(want.field) || "<root>"}`;
  const message = want.message === undefined ? "" : ` message ${String(want.message)}`;
  return `${ruleText(want.rule)}${field}${message}`;
}

function gotLine(warning: Warning): string {
  const field = warningField(warning);
  const text = warningText(warning);
  const tooLong = text.length > warningChars ? ` (${text.length} characters, over ${warningChars})` : "";
  return `${ruleText(warningRule(warning))}${field === undefined ? "" : ` ${field.toString() || "<root>"}`} message ${JSON.stringify(text)}${tooLong}`;
}

const warnings = { items: "warnings", operator: "matchWarnings", matches, gotLine, expectedLine };
