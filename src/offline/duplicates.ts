import type { Problem } from "./admit.js";

/**
 * The rule a CRD's CEL error is: every CEL rule of a schema source that enforces a webhook rule ends
 * its message with `(rule <id>)` (src/codegen/crd-rules.ts reads the same tag), so that the API server's
 * error names the rule, as the webhook's does.
 */
const ruleTag = /\(rule ([^)]+)\)$/;
const celRule = (problem: Pick<Problem, "message">) => ruleTag.exec(problem.message)?.[1];

/** The webhook rules whose problem one of these CEL errors reports (so validate reports it once, as CEL). */
export function webhookRulesCelReports(cel: Pick<Problem, "message">[]): string[] {
  return [...new Set(cel.flatMap((found) => celRule(found) ?? []))];
}
