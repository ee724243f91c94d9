import { judgeValidation } from "../../src/admission/handler.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import type { RuleDeclaration } from "../../src/admission/rule-catalogue.js";
import { warningField, warningRule } from "../../src/admission/warning.js";
import { crdRuleValidator } from "../../src/cel/crd-validator.js";
import { evaluateValidatingPolicy, type PolicyRequest } from "../../src/cel/policy-evaluator.js";
import { type GeneratedPolicy, validatingPolicies } from "../../src/codegen/native-policies.js";
import type { OfflineKind } from "../../src/offline/kinds.js";
import { fieldOfMessage } from "../../src/offline/native-admission.js";
import { policyKinds } from "../../src/resources/policy-kinds.js";
import { pruneAndDefault } from "../../src/validation/prune-default.js";
import type { PolicyCase } from "./policy-cases.js";

/** What one side found for one rule: the fields it names (empty: the rule did not fire). */
export type RuleFindings = Map<string, string[]>;

const schemasDir = new URL("../../schemas/", import.meta.url).pathname;
const generated = new Map(
  policyKinds(schemasDir).map((kind) => [`${kind.group}/${kind.plural}`, validatingPolicies(kind)]),
);

/** The generated policies of a kind. */
export function policiesOf(kind: OfflineKind): GeneratedPolicy[] {
  return generated.get(`${kind.kind.group}/${kind.source.crd.names.plural}`) ?? [];
}

/** The rules of a kind the API server enforces itself: a CRD's CEL rules or a policy. */
export function nativeRules(kind: OfflineKind): RuleDeclaration[] {
  return (kind.kind.declarations ?? []).filter(
    (rule) => rule.native.by === "crd" || rule.native.by === "policy",
  );
}

/** A case's objects as the API server hands them on: decoded with the CRD's schema (defaults, pruning). */
export function decodedCase(kind: OfflineKind, c: PolicyCase): { object: unknown; oldObject?: unknown } {
  const object = pruneAndDefault(kind.crdSchema, c.object).object;
  if (c.operation === "CREATE" || c.oldObject === undefined) return { object };
  return { object, oldObject: pruneAndDefault(kind.crdSchema, c.oldObject).object };
}

/** Whether the API server's schema stage refuses the case (then no rule of ours is ever asked). */
export function schemaRefuses(kind: OfflineKind, object: unknown, oldObject: unknown): boolean {
  const strategy = kind.server.validate(
    object as Record<string, unknown>,
    oldObject as Record<string, unknown> | undefined,
  );
  return strategy.errors.some(({ stage }) => stage !== "cel");
}

/** The webhook's verdict, rule by rule: denials for error rules, warnings for warning rules. */
export async function webhookFindings(
  kind: OfflineKind,
  object: unknown,
  oldObject: unknown,
  operation: PolicyCase["operation"],
): Promise<RuleFindings> {
  const metadata = ((object as { metadata?: Record<string, unknown> }).metadata ?? {}) as Record<
    string,
    unknown
  >;
  const request: AdmissionRequest = {
    uid: "parity",
    kind: { group: kind.kind.group, version: kind.kind.version, kind: kind.kind.kind },
    resource: { group: kind.kind.group, version: kind.kind.version, resource: kind.source.crd.names.plural },
    ...(typeof metadata.name === "string" ? { name: metadata.name } : {}),
    namespace: typeof metadata.namespace === "string" ? metadata.namespace : "default",
    operation,
    object,
    ...(operation === "UPDATE" ? { oldObject } : {}),
  };
  const verdict = await judgeValidation(kind.kind, request);
  const found: RuleFindings = new Map();
  const add = (rule: string | undefined, field: string) => {
    if (!rule) return;
    found.set(rule, [...(found.get(rule) ?? []), field]);
  };
  for (const error of verdict.errors) add(error.rule, error.field.toString());
  for (const warning of verdict.warnings) {
    if (typeof warning === "string") continue;
    const rule = warningRule(warning);
    // Ratcheting's "already invalid before this update" warnings restate spared errors: not the rule's.
    if (warning.message.startsWith("already invalid before this update")) continue;
    add(rule, warningField(warning)?.toString() ?? "");
  }
  return found;
}

/**
 * The native verdict, rule by rule: each generated policy evaluated (bound Deny, the API server shows
 * the first failed validation; bound Warn, every one) and, for the rules a CRD enforces, the CRD's rules.
 * `from` picks the policies: those written for their rule, and those standing for a CRD's rules.
 */
export function policyFindings(
  kind: OfflineKind,
  object: unknown,
  oldObject: unknown,
  operation: PolicyCase["operation"],
  from: GeneratedPolicy["from"][] = ["declaration", "crd"],
): RuleFindings {
  const found: RuleFindings = new Map();
  const request: PolicyRequest = {
    operation,
    group: kind.kind.group,
    version: kind.kind.version,
    resource: kind.source.crd.names.plural,
    object,
    ...(operation === "UPDATE" ? { oldObject } : {}),
  };
  for (const policy of policiesOf(kind)) {
    if (!from.includes(policy.from)) continue;
    const verdict = evaluateValidatingPolicy(policy.spec, request, kind.crdSchema);
    const failures = policy.action === "deny" ? verdict.failures.slice(0, 1) : verdict.failures;
    if (failures.length === 0) continue;
    found.set(
      policy.rule,
      failures.map((failure) =>
        failure.error ? `<error: ${failure.message}>` : fieldOfMessage(failure.message).toString(),
      ),
    );
  }
  return found;
}

const crdRules = new Map<OfflineKind, ReturnType<typeof crdRuleValidator>>();

function crdRulesOf(kind: OfflineKind): ReturnType<typeof crdRuleValidator> {
  let rules = crdRules.get(kind);
  if (!rules) {
    rules = crdRuleValidator(kind.crdSchema);
    crdRules.set(kind, rules);
  }
  return rules;
}

/** The CRD's own CEL rules (evaluated as the API server does), by the rule each message names. */
export function crdFindings(kind: OfflineKind, object: unknown, oldObject: unknown): RuleFindings {
  const found: RuleFindings = new Map();
  for (const error of crdRulesOf(kind)(object, oldObject).errors) {
    const rule = /\(rule ([^)]+)\)$/.exec(error.detail ?? "")?.[1];
    if (!rule) continue;
    found.set(rule, [...(found.get(rule) ?? []), error.field.toString()]);
  }
  return found;
}

/** One rule on which the two verdicts differ. */
export interface Disagreement {
  rule: string;
  webhook: string[];
  native: string[];
}

/**
 * Where the webhook and the native side disagree on the native rules: one fires and the other does not,
 * or the native side names a field the webhook does not (its field must be one the webhook names, or a
 * field that contains one: a rule on a list item may name the item).
 */
export function disagreements(
  rules: readonly RuleDeclaration[],
  webhook: RuleFindings,
  native: RuleFindings,
): Disagreement[] {
  const found: Disagreement[] = [];
  for (const rule of rules) {
    const w = webhook.get(rule.id) ?? [];
    const n = native.get(rule.id) ?? [];
    const agree =
      w.length === 0
        ? n.length === 0
        : n.length > 0 &&
          n.every((field) =>
            w.some(
              (named) => named === field || named.startsWith(`${field}.`) || named.startsWith(`${field}[`),
            ),
          );
    if (!agree) found.push({ rule: rule.id, webhook: w, native: n });
  }
  return found;
}
