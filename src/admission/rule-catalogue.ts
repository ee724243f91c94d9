import type { RuleAction } from "./rule-actions.js";

/**
 * An error rule denies what the real system will certainly refuse or fail on (a rule action may make it
 * warn, or turn it off); a warning rule finds what is legal but may go wrong (it warns, or is off).
 */
export type Severity = "error" | "warning";

/**
 * One rule, declared once beside its check: what `serve --rule-action` accepts, what docs/rules.md,
 * the chart's values schema and SARIF's rule metadata say of it, and what ratcheting's focus runs.
 */
export interface RuleDeclaration {
  /** `module.release-name`: `<kind>.<rule>`, stable (rule actions and reports name it). */
  id: string;
  severity: Severity;
  /** One line: what the rule finds. */
  summary: string;
  /** What the real system (the operator, the API server, Helm) does with such an object. */
  realSystem: string;
  /** Why we deny where the real system does not (or not yet): only for rules stricter than it. */
  stricter?: string;
  /** Fields our CRD checks the same rule on (its schema or CEL rules), which then deny it first. */
  restatedAt?: readonly string[];
  /** The code or documentation the rule follows (repository path, function, or document). */
  upstream: string;
  /** An update-only rule (`validateTransition`): judged on UPDATE, never ratcheted. */
  transition?: boolean;
  /** A rule no rule action reaches (the work budget: an object is never admitted unjudged). */
  fixed?: boolean;
}

type Declared = Omit<RuleDeclaration, "id" | "severity">;

/** Error rules, keyed by id. */
export function errorRules(rules: Record<string, Declared>): readonly RuleDeclaration[] {
  return Object.entries(rules).map(([id, rule]) => ({ id, severity: "error", ...rule }));
}

/** Warning rules, keyed by id. */
export function warningRules(rules: Record<string, Declared>): readonly RuleDeclaration[] {
  return Object.entries(rules).map(([id, rule]) => ({ id, severity: "warning", ...rule }));
}

/** The action a rule has when `--rule-action` does not name it. */
export function defaultAction(rule: RuleDeclaration): RuleAction {
  return rule.severity === "error" ? "deny" : "warn";
}

/** The actions a rule may be given: a warning rule finds what is legal, so it never denies. */
export function allowedActions(rule: RuleDeclaration): readonly RuleAction[] {
  return rule.severity === "error" ? ["deny", "warn", "off"] : ["warn", "off"];
}

/** The ids of some rules: what a focus (ratcheting's look at an old object) is compared with. */
export function idsOf(rules: readonly RuleDeclaration[]): string[] {
  return rules.map((rule) => rule.id);
}

/** Whether a check whose rules are `rules` must run: always, unless a focus names none of them. */
export function runsUnder(
  rules: readonly RuleDeclaration[],
  focus: { errorsOf: ReadonlySet<string> } | undefined,
) {
  return !focus || rules.some((rule) => focus.errorsOf.has(rule.id));
}

/**
 * The protocol layer's own rules, for every kind alike. The work budget is fixed: a required check
 * that ran out of work denies, as no object may be admitted unjudged.
 */
export const protocolRules = errorRules({
  "webhook.work-budget": {
    summary: "judging the object costs more than one review's work budget (12 million units)",
    realSystem:
      "the operators judge any object however long it takes; the API server bounds only size and depth",
    stricter:
      "bounded work per review: no input may hang the webhook or spread its cost over many rules; no real object comes near",
    upstream: "this project's src/budget/work-budget.ts",
    fixed: true,
  },
});
