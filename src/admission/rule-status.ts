import type { ResourceKind } from "./resource-kind.js";
import type { AdmissionRequest } from "./review.js";
import type { RuleActions } from "./rule-actions.js";
import { protocolRules, type RuleDeclaration } from "./rule-catalogue.js";
import type { ReviewVerdict } from "./verdict.js";
import { warningRule } from "./warning.js";

/**
 * What became of one rule in one review, as Kyverno reports each rule: `fail`, its errors deny; `warn`,
 * it warned (a warning rule, an error rule set to warn, or an error the old object had: ratcheted);
 * `pass`, it was judged and found nothing; `skip`, it was not judged, and `reason` says why. (Kyverno's
 * `error` has no case here: a rule that cannot finish its work fails as `webhook.work-budget`.)
 */
export type RuleResult = "pass" | "fail" | "warn" | "skip";

/** Why a rule was not judged: a stable code (`reason`) and a sentence (`message`). */
export type SkipReason =
  /** `--rule-action ID=off`. */
  | "rule-action-off"
  /** An update-only rule, on a CREATE. */
  | "update-only"
  /** The object does not fit its schema so far that no rule can read it (`<kind>.schema` fails). */
  | "structure-gate"
  /** The review ran out of its work budget before it was done (`webhook.work-budget` fails). */
  | "work-budget"
  /** The object is nested deeper than any rule may walk: denied before any rule ran. */
  | "too-deep"
  /** DELETE and CONNECT: no rule judges them. */
  | "operation"
  /** The request is not this kind's: answered 400. */
  | "bad-request"
  /** Offline: an earlier stage of the API server (decode, schema, CEL, the mutating webhook) refused the object. */
  | "refused-first"
  /** Offline: a cluster lookup this run could not make. */
  | "lookup";

/** The reasons a review itself gives; the offline engine adds the others (src/offline/rule-statuses.ts). */
type ReviewSkip = Exclude<SkipReason, "refused-first" | "lookup">;

export interface RuleStatus {
  rule: string;
  status: RuleResult;
  reason?: SkipReason;
  message?: string;
}

/**
 * Every rule of the kind (and the protocol's own) with its status in this review. Derived from the
 * verdict when asked for (`validate`, `audit`): the webhook's answer never carries it,
 * so a review pays nothing for it. A rule is `fail` or `warn` when an error or warning carries its id;
 * otherwise `skip` when something kept it from being judged, else `pass`.
 */
export function ruleStatuses(
  kind: ResourceKind,
  request: AdmissionRequest,
  verdict: ReviewVerdict,
  ruleActions?: RuleActions,
): RuleStatus[] {
  // A verdict with nothing in it (most objects a `validate` run reads) gives every rule a status that
  // depends only on the kind, the operation and the rule actions: made once, shared, frozen.
  const clean =
    verdict.errors.length === 0 &&
    verdict.warnings.length === 0 &&
    verdict.badRequest === undefined &&
    verdict.unjudged === undefined &&
    !verdict.outOfWork;
  if (!clean) return statusesOf(kind, request, verdict, ruleActions);
  let cache = cleanStatuses.get(kind);
  if (cache === undefined) {
    cache = { none: new Map(), byActions: new WeakMap() };
    cleanStatuses.set(kind, cache);
  }
  let byOperation = ruleActions === undefined ? cache.none : cache.byActions.get(ruleActions);
  if (byOperation === undefined) {
    byOperation = new Map();
    if (ruleActions !== undefined) cache.byActions.set(ruleActions, byOperation);
  }
  let statuses = byOperation.get(request.operation);
  if (statuses === undefined) {
    statuses = Object.freeze(
      statusesOf(kind, request, verdict, ruleActions).map((status) => Object.freeze(status)),
    ) as RuleStatus[];
    byOperation.set(request.operation, statuses);
  }
  return statuses;
}

/**
 * ruleStatuses of clean verdicts, by kind, rule actions (one map for a whole `validate` run; held
 * weakly, as the kinds are) and operation.
 */
const cleanStatuses = new WeakMap<
  ResourceKind,
  { none: Map<string, RuleStatus[]>; byActions: WeakMap<RuleActions, Map<string, RuleStatus[]>> }
>();

function statusesOf(
  kind: ResourceKind,
  request: AdmissionRequest,
  verdict: ReviewVerdict,
  ruleActions?: RuleActions,
): RuleStatus[] {
  const found = new Map<string, RuleResult>();
  for (const error of verdict.errors) if (error.rule) found.set(error.rule, "fail");
  for (const warning of verdict.warnings) {
    const rule = warningRule(warning);
    if (rule && !found.has(rule)) found.set(rule, "warn");
  }
  return rulesOf(kind).map((rule): RuleStatus => {
    const status = found.get(rule.id);
    if (status) return { rule: rule.id, status };
    const reason = skipReason(rule, request, verdict, ruleActions);
    return reason
      ? skipped(rule.id, reason, skipMessage(reason, rule.id))
      : { rule: rule.id, status: "pass" };
  });
}

/** The kind's declared rules, then the protocol's own (the work budget), each once. */
export function rulesOf(kind: ResourceKind): readonly RuleDeclaration[] {
  const declared = kind.declarations ?? [];
  return [...declared, ...protocolRules.filter((rule) => !declared.some(({ id }) => id === rule.id))];
}

export const skipped = (rule: string, reason: SkipReason, message: string): RuleStatus => ({
  rule,
  status: "skip",
  reason,
  message,
});

/** The gate's own rules (`<kind>.schema`, `<kind>.unknown-field`): judged by the gate itself. */
const isGateRule = (id: string) => id.endsWith(".schema") || id.endsWith(".unknown-field");

function skipReason(
  rule: RuleDeclaration,
  request: AdmissionRequest,
  verdict: ReviewVerdict,
  ruleActions: RuleActions | undefined,
): ReviewSkip | undefined {
  if (verdict.badRequest !== undefined) return "bad-request";
  if (verdict.unjudged === "operation") return "operation";
  // Not applicable, whatever else happened: a CREATE has no old object to compare with.
  if (rule.transition && request.operation !== "UPDATE") return "update-only";
  if (!rule.fixed && ruleActions?.get(rule.id) === "off") return "rule-action-off";
  if (verdict.outOfWork) return "work-budget";
  if (verdict.unjudged === "too-deep") return "too-deep";
  if (verdict.unjudged === "structure-gate" && !rule.transition && !isGateRule(rule.id))
    return "structure-gate";
  return undefined;
}

function skipMessage(reason: ReviewSkip, rule: string): string {
  const kind = rule.slice(0, rule.indexOf("."));
  switch (reason) {
    case "rule-action-off":
      return `its rule action is off (--rule-action ${rule}=off)`;
    case "update-only":
      return "an update-only rule: judged on UPDATE only";
    case "structure-gate":
      return `not judged: the object does not fit its schema (${kind}.schema) so that no rule can read it`;
    case "work-budget":
      return "not judged: the review ran out of its work budget first (webhook.work-budget)";
    case "too-deep":
      return "not judged: the object is nested deeper than any rule may walk, denied before the rules ran";
    case "operation":
      return "no rule judges a DELETE or CONNECT";
    case "bad-request":
      return "not judged: the request is not for this kind (answered 400)";
  }
}
