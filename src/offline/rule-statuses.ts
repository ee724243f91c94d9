import type { ResourceKind } from "../admission/resource-kind.js";
import { type RuleStatus, rulesOf, skipped } from "../admission/rule-status.js";
import type { Problem, Stage } from "./admit.js";

/**
 * Every webhook rule of the kind skipped: an earlier stage of the API server refused the object, so the
 * validating webhook never saw it (as in a cluster, where admission stops at the first refusal).
 */
export function notReached(kind: ResourceKind, stage: Stage | undefined): RuleStatus[] {
  const message = `not judged: ${refusedBy(stage)} refused the object first, and the validating webhook runs after it`;
  return rulesOf(kind).map((rule) => skipped(rule.id, "refused-first", message));
}

function refusedBy(stage: Stage | undefined): string {
  switch (stage) {
    case "mutating-webhook":
      return "the mutating webhook";
    case "schema":
      return "the API server's schema validation";
    case "cel":
      return "the CRD's CEL rules";
    case "metadata":
      return "the API server's metadata validation";
    default:
      return "the API server (reading the request)";
  }
}

/**
 * The statuses with what the API server's own stages found under a rule's id: a CEL rule that
 * enforces a declared rule (its message names it), the unknown fields it prunes, and its schema
 * validation, which is the `<kind>.schema` rule's (the webhook's copy of the same schema).
 */
export function withProblems(statuses: RuleStatus[], errors: Problem[], warnings: Problem[]): RuleStatus[] {
  const schemaRule = statuses.find((status) => status.rule.endsWith(".schema"))?.rule;
  const found = new Map<string, "fail" | "warn">();
  for (const error of errors) {
    const rule = error.rule ?? (error.stage === "schema" ? schemaRule : undefined);
    if (rule) found.set(rule, "fail");
  }
  for (const warning of warnings)
    if (warning.rule && !found.has(warning.rule)) found.set(warning.rule, "warn");
  if (found.size === 0) return statuses;
  return statuses.map((status) => {
    const result = found.get(status.rule);
    return result === undefined || status.status === "fail" ? status : { rule: status.rule, status: result };
  });
}

/** The statuses with `rule` skipped for `reason` where it passed: what was not judged after all. */
export function withSkipped(
  statuses: RuleStatus[],
  rule: string,
  reason: RuleStatus["reason"] & string,
  message: string,
): RuleStatus[] {
  return statuses.map((status) =>
    status.rule === rule && status.status === "pass" ? skipped(rule, reason, message) : status,
  );
}
