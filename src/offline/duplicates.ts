import { taggedRuleId } from "../codegen/crd-rules.js";
import type { Problem } from "./admit.js";

/**
 * The webhook rules whose problem one of these CEL errors reports (so validate reports it once, as CEL):
 * every CEL rule of a schema source that enforces a webhook rule ends its message with `(rule <id>)`.
 */
export function webhookRulesCelReports(cel: Pick<Problem, "message">[]): string[] {
  return [...new Set(cel.flatMap((found) => taggedRuleId(found.message) ?? []))];
}
