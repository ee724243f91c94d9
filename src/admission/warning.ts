import type { FieldPath } from "../base/field-path.js";
import { limits, truncate } from "../base/limits.js";
import type { RuleId } from "./rule-catalogue.js";

/** Fits a warning into the 120 characters the API server allows (it drops longer ones). */
export function fitWarning(text: string): string {
  return truncate(text, limits.warningChars);
}

/**
 * A warning as its producer knows it: the text the API server shows, and where known the rule that
 * gave it (as an error's rule id, what a rule action names to turn it off) and the field it is about
 * (what `validate` points its line at).
 */
export interface FieldWarning {
  message: string;
  rule?: string;
  field?: FieldPath;
}

/** A warning and the rule that gave it (a declared id: `RuleId`). */
export interface RuleWarning extends FieldWarning {
  rule: RuleId;
}

/** What a validator warns: a structured warning, or text that no rule action reaches. */
export type Warning = string | FieldWarning;

/** A warning about one field, fitted into 120 characters: `text` names the field itself (its rendering). */
export function warningAt(field: FieldPath, text: string): FieldWarning {
  return { field, message: fitWarning(text) };
}

/** Warnings of one rule (a declared id: `RuleId`): texts, or texts with the field each is about. */
export function ruleWarnings(
  rule: RuleId,
  messages: readonly (string | { message: string; field?: FieldPath })[],
): RuleWarning[] {
  return messages.map((message) => (typeof message === "string" ? { rule, message } : { ...message, rule }));
}

/** The text the API server shows. */
export function warningText(warning: Warning): string {
  return typeof warning === "string" ? warning : warning.message;
}

/** The rule that gave a warning, if any. */
export function warningRule(warning: Warning): string | undefined {
  return typeof warning === "string" ? undefined : warning.rule;
}

/** The field a warning is about, if its producer said. */
export function warningField(warning: Warning): FieldPath | undefined {
  return typeof warning === "string" ? undefined : warning.field;
}
