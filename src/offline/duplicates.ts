import type { Problem } from "./admit.js";

/**
 * The rule a CRD's CEL error is: every CEL rule of a schema source that enforces a webhook rule ends
 * its message with `(rule <id>)` (src/codegen/crd-rules.ts reads the same tag), so that the API server's
 * error names the rule, as the webhook's does.
 */
const ruleTag = /\(rule ([^)]+)\)$/;
const celRule = (problem: Pick<Problem, "message">) => ruleTag.exec(problem.message)?.[1];

/**
 * One finding per problem: a validating webhook error that a CEL error reports too (the CEL error names
 * the webhook error's rule, at the same field or one above it) is dropped. The CEL error is kept: the
 * API server evaluates the CRD's rules before it calls the validating webhooks (which a CEL failure
 * stops), so it is the one `kubectl apply` shows.
 */
export function withoutDuplicates(errors: Problem[]): Problem[] {
  const cel = errors.filter((error) => error.stage === "cel");
  if (cel.length === 0) return errors;
  return errors.filter((error) => error.stage !== "validating-webhook" || !reportedByCel(error, cel));
}

/** Whether a validating webhook error is a problem one of the CEL errors reports too. */
export function reportedByCel(
  error: Pick<Problem, "rule" | "message" | "field">,
  cel: Pick<Problem, "message" | "field">[],
): boolean {
  return (
    error.rule !== undefined &&
    cel.some((found) => celRule(found) === error.rule && error.field.within(found.field))
  );
}

/** The webhook rules whose problem one of these CEL errors reports (so validate reports it once, as CEL). */
export function webhookRulesCelReports(cel: Pick<Problem, "message">[]): string[] {
  return [...new Set(cel.flatMap((found) => celRule(found) ?? []))];
}
