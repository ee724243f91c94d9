import { isDeepStrictEqual } from "node:util";
import type { FieldError, FieldErrorType } from "../../src/admission/field-errors.js";
import type { RuleId } from "../../src/admission/rule-catalogue.js";
import { matchInOrder, ruleText, textMatches } from "./match-in-order.js";

/**
 * One field error a rule test expects, as structured data: its type, its field (as rendered,
 * `spec.helm.releaseName`) and its rule (a declared id, so a misspelt one fails `tsc`; left out: the
 * error must have none, as a check's own errors before its caller tags them). `detail` (exact, or a pattern) and `value` are compared only when given.
 */
export interface ExpectedError {
  type: FieldErrorType;
  /** As rendered; a pattern where the exact place is not the point (an index the budget stopped at). */
  field: string | RegExp;
  rule?: RuleId;
  detail?: string | RegExp;
  value?: unknown;
}

/**
 * Asserts that `got` are exactly the `expected` errors, in order: what a rule found, never how its
 * message is worded (tests of wording compare the rendered text). On a difference the failure lists both,
 * one error a line, with the first that differs, after `context` (the case, in a loop) when given.
 */
export function matchErrors(
  got: readonly FieldError[],
  expected: readonly ExpectedError[],
  context?: string,
): void {
  matchInOrder(fieldErrors, got, expected, context);
}

function matches(error: FieldError, want: ExpectedError): boolean {
  if (error.type !== want.type || error.rule !== want.rule) return false;
  if (!textMatches(error.field.toString(), want.field)) return false;
  if (want.detail !== undefined && !textMatches(error.detail ?? "", want.detail)) return false;
  return !("value" in want) || ("value" in error && isDeepStrictEqual(error.value, want.value));
}

function expectedLine(want: ExpectedError): string {
  const value = "value" in want ? ` value ${JSON.stringify(want.value)}` : "";
  const detail = want.detail === undefined ? "" : ` detail ${String(want.detail)}`;
  return `${want.type} ${String(want.field) || "<root>"} ${ruleText(want.rule)}${value}${detail}`;
}

function gotLine(error: FieldError): string {
  const value = "value" in error ? ` value ${JSON.stringify(error.value)}` : "";
  const detail = error.detail === undefined ? "" : ` detail ${JSON.stringify(error.detail)}`;
  return `${error.type} ${error.field.toString() || "<root>"} ${ruleText(error.rule)}${value}${detail}`;
}

const fieldErrors = { items: "field errors", operator: "matchErrors", matches, gotLine, expectedLine };
