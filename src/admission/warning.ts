/** Fits a warning into the 120 characters the API server allows (it drops longer ones). */
export function fitWarning(text: string): string {
  return text.length <= 120 ? text : `${text.slice(0, 117)}...`;
}

/** A warning and the rule that gave it: as an error's rule id, what a rule action names to turn it off. */
export interface RuleWarning {
  rule: string;
  message: string;
}

/** What a validator warns: a rule's warning, or text that no rule action reaches. */
export type Warning = string | RuleWarning;

/** Warnings of one rule. */
export function ruleWarnings(rule: string, messages: readonly string[]): RuleWarning[] {
  return messages.map((message) => ({ rule, message }));
}

/** The text the API server shows. */
export function warningText(warning: Warning): string {
  return typeof warning === "string" ? warning : warning.message;
}
