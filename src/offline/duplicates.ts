import type { Problem } from "./admit.js";

/**
 * Webhook rules that check what one of the CRD's CEL rules checks (the schema source has both: the CEL
 * rule so that the API server refuses without the webhook, the webhook rule for clusters whose CRD is the
 * operator's). Each pairs the webhook rule, and which of its messages, with the CEL rule's message.
 */
const sameProblem: { rule: string; webhook?: RegExp; cel: string }[] = [
  { rule: "module.source", cel: "exactly one of spec.helm or spec.custom must be set" },
  { rule: "module.chart-source", cel: "exactly one chart source must be set: repo, git or configMap" },
  {
    rule: "module.release-name",
    webhook: /a DNS-1035 label must consist of/,
    cel: "must be a DNS-1035 label",
  },
  { rule: "module.release-name-immutable", cel: "releaseName is immutable once set" },
  { rule: "module.source-immutable", cel: "a helm Module cannot become a custom Module" },
  { rule: "module.source-immutable", cel: "a custom Module cannot become a helm Module" },
];

/** The webhook rules whose problem one of these CEL errors reports (so validate reports it once, as CEL). */
export function webhookRulesCelReports(cel: Pick<Problem, "message">[]): string[] {
  return sameProblem
    .filter((pair) => cel.some((found) => found.message.includes(pair.cel)))
    .map((pair) => pair.rule);
}
