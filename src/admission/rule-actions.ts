import { type FieldErrorList, formatFieldError } from "./field-errors.js";
import type { ResourceKind } from "./resource-kind.js";
import { allowedActions } from "./rule-catalogue.js";
import { fitWarning, type Warning } from "./warning.js";

/**
 * What a rule's errors do, as Gatekeeper's enforcementAction and Kyverno's failure action: deny the
 * request (the default), admit it with the error as a warning, or nothing at all.
 */
export type RuleAction = "deny" | "warn" | "off";

/** Actions by rule id (`module.release-name`); a rule not listed denies. */
export type RuleActions = ReadonlyMap<string, RuleAction>;

const actions: readonly RuleAction[] = ["deny", "warn", "off"];
const ruleId = /^[a-z0-9]+(-[a-z0-9]+)*\.[a-z0-9]+(-[a-z0-9]+)*$/;

/** `ID=deny|warn|off`, as given to `--rule-action`; repeated ids: the last one wins. */
export function parseRuleActions(texts: readonly string[]): RuleActions {
  const parsed = new Map<string, RuleAction>();
  for (const text of texts) {
    const [id = "", action = "", ...rest] = text.split("=");
    if (rest.length > 0 || !ruleId.test(id) || !actions.includes(action as RuleAction)) {
      throw new Error(
        `--rule-action must be RULE-ID=deny|warn|off with a rule id such as module.release-name, got ${JSON.stringify(text)}`,
      );
    }
    parsed.set(id, action as RuleAction);
  }
  return parsed;
}

/**
 * The ruleActions checked against the rules the kinds declare: a misspelt id would otherwise leave its
 * rule denying while the operator believes it warns. Throws with the known ids.
 */
export function checkRuleIds(ruleActions: RuleActions, kinds: readonly ResourceKind[]): void {
  const declared = new Map(
    kinds
      .flatMap((kind) => kind.declarations ?? [])
      .flatMap((rule) => (rule.fixed ? [] : ([[rule.id, rule]] as const))),
  );
  const unknown = [...ruleActions.keys()].filter((id) => !declared.has(id));
  if (unknown.length > 0) {
    throw new Error(
      `--rule-action: no rule ${unknown.map((id) => JSON.stringify(id)).join(", ")}; the rules are ${[...declared.keys()].sort().join(", ")}`,
    );
  }
  // A warning rule finds what is legal: it may be turned off, never made to deny.
  const denying = [...ruleActions].filter(([id, action]) => {
    const rule = declared.get(id);
    return rule !== undefined && !allowedActions(rule).includes(action);
  });
  if (denying.length > 0) {
    throw new Error(
      `--rule-action: ${denying.map(([id]) => id).join(", ")} only ${denying.length === 1 ? "warns" : "warn"}: give warn or off`,
    );
  }
}

/** Warnings less those of rules turned off. */
export function withoutSilenced(
  warnings: readonly Warning[],
  ruleActions: RuleActions | undefined,
): Warning[] {
  if (!ruleActions || ruleActions.size === 0) return [...warnings];
  return warnings.filter(
    (warning) =>
      typeof warning === "string" || warning.rule === undefined || ruleActions.get(warning.rule) !== "off",
  );
}

/** Errors split by their rule's action: those that still deny, and the warnings of rules set to warn. */
export function applyRuleActions(
  errors: FieldErrorList,
  ruleActions: RuleActions | undefined,
): { errors: FieldErrorList; warnings: Warning[] } {
  if (!ruleActions || ruleActions.size === 0) return { errors, warnings: [] };
  const denying: FieldErrorList = [];
  const warnings: Warning[] = [];
  for (const error of errors) {
    const action = (error.rule && ruleActions.get(error.rule)) || "deny";
    if (action === "deny") denying.push(error);
    else if (action === "warn") {
      const message = fitWarning(formatFieldError(error));
      warnings.push({ message, field: error.field, ...(error.rule ? { rule: error.rule } : {}) });
    }
  }
  return { errors: denying, warnings };
}
