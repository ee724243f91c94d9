import { causeType, type FieldError, formatFieldError } from "../admission/field-errors.js";
import type { RuleActions } from "../admission/rule-actions.js";
import { FieldPath } from "../base/field-path.js";
import {
  evaluateMutatingPolicy,
  evaluateValidatingPolicy,
  type PolicyFailure,
  type PolicyRequest,
} from "../cel/policy-evaluator.js";
import { taggedRuleId } from "../codegen/crd-rules.js";
import {
  type GeneratedMutation,
  type GeneratedPolicy,
  mutatingPolicies,
  validatingPolicies,
} from "../codegen/native-policies.js";
import { policyKinds } from "../resources/policy-kinds.js";
import { pruneAndDefault } from "../validation/prune-default.js";
import type { OfflineVerdict, Problem } from "./admit.js";
import { applyPatch } from "./apply-patch.js";
import { withCelRule } from "./cel-rule.js";
import { type OfflineKind, schemasDir } from "./kinds.js";

/** The native policies of one kind, generated from the declarations as `npm run generate` writes them. */
interface KindPolicies {
  validating: GeneratedPolicy[];
  mutating: GeneratedMutation[];
}

let generated: Map<string, KindPolicies> | undefined;

/**
 * Every kind's policies by group and kind name, generated once per process from the rule declarations
 * and the schema sources: the same generator and inputs as the chart's files (the drift check keeps them
 * equal), so the package, which has no chart, evaluates exactly what the chart installs.
 */
function policiesOf(kind: OfflineKind): KindPolicies {
  if (!generated) {
    generated = new Map();
    for (const policyKind of policyKinds(schemasDir)) {
      generated.set(`${policyKind.group}/${policyKind.plural}`, {
        validating: validatingPolicies(policyKind),
        mutating: mutatingPolicies(policyKind),
      });
    }
  }
  return (
    generated.get(`${kind.kind.group}/${kind.source.crd.names.plural}`) ?? { validating: [], mutating: [] }
  );
}

/**
 * The verdict of a cluster that runs the native policies and not the webhook (the chart's
 * nativePolicies, our CRDs installed): the CRD's schema and defaults, the MutatingAdmissionPolicies,
 * the CRD's structural schema and CEL rules, then the ValidatingAdmissionPolicies, bound Deny or Warn
 * as their rule's action (`ruleActions`, as the chart's values give them). A policy that stands for a
 * CRD rule (for clusters where the CRD is another's) is not evaluated twice: the CRD's rules are.
 */
export function admitNatively(
  kind: OfflineKind,
  object: unknown,
  oldObject?: unknown,
  ruleActions?: RuleActions,
): OfflineVerdict {
  const policies = policiesOf(kind);
  const decoded = pruneAndDefault(kind.crdSchema, object);
  const previous = oldObject === undefined ? undefined : pruneAndDefault(kind.crdSchema, oldObject).object;
  const verdict: OfflineVerdict = { allowed: true, errors: [], warnings: [], patch: [] };
  const request = (current: unknown): PolicyRequest => ({
    operation: previous === undefined ? "CREATE" : "UPDATE",
    group: kind.kind.group,
    version: kind.kind.version,
    resource: kind.source.crd.names.plural,
    object: current,
    ...(previous === undefined ? {} : { oldObject: previous }),
  });
  let current = decoded.object;
  for (const mutation of policies.mutating) {
    const result = evaluateMutatingPolicy(mutation.spec, request(current), kind.crdSchema);
    if (!result) continue;
    if ("error" in result) {
      verdict.errors.push({
        stage: "mutating-policy",
        field: FieldPath.empty,
        type: "InternalError",
        message: `MutatingAdmissionPolicy ${mutation.mutation}: ${result.error}`,
        rule: mutation.mutation,
      });
      continue;
    }
    verdict.patch.push(...result.patch);
    current = pruneAndDefault(kind.crdSchema, applyPatch(current, result.patch)).object;
  }
  verdict.warnings.push(
    ...decoded.pruned.map(
      (field): Problem => ({ stage: "schema", field, type: "Warning", message: `unknown field "${field}"` }),
    ),
  );
  // The custom resource strategy, as the webhook path runs it (src/offline/admit.ts): metadata, schema
  // (ratcheted on UPDATE), embedded resources, list types, then the CRD's CEL rules.
  const strategy = kind.server.validate(
    asRecord(current),
    previous === undefined ? undefined : asRecord(previous),
  );
  verdict.errors.push(
    ...strategy.errors.map(({ stage, error }) => withCelRule(kind, problemOf(stage, error))),
  );
  verdict.warnings.push(
    ...strategy.warnings.map((warning) =>
      withCelRule(kind, { stage: "cel", field: warning.field, type: "Warning", message: warning.message }),
    ),
  );
  // The API server calls validating admission only for an object its schema and CRD rules accept.
  if (verdict.errors.length > 0) return { ...verdict, allowed: false };
  for (const policy of policies.validating) {
    if (policy.from === "crd") continue;
    const action = ruleActions?.get(policy.rule) ?? policy.action;
    if (action === "off") continue;
    const result = evaluateValidatingPolicy(policy.spec, request(current), kind.crdSchema);
    if (action === "deny") {
      // The API server answers a denial with the first failed validation's message.
      const first = result.failures[0];
      if (first) verdict.errors.push(policyProblem(policy, first, "validating-policy"));
    } else {
      verdict.warnings.push(
        ...result.failures.map((failure) => policyProblem(policy, failure, "validating-policy", "Warning")),
      );
    }
  }
  return { ...verdict, allowed: verdict.errors.length === 0 };
}

/** A policy's failure as a problem: its field is the message's (every generated message starts with it). */
function policyProblem(
  policy: GeneratedPolicy,
  failure: PolicyFailure,
  stage: Problem["stage"],
  type = "FieldValueInvalid",
): Problem {
  // `... (rule module.config-type)` at the end of a policy's message: the rule it enforces.
  const rule = taggedRuleId(failure.message) ?? policy.rule;
  const field = failure.error ? FieldPath.empty : fieldOfMessage(failure.message);
  return { stage, field, type: failure.error ? "InternalError" : type, message: failure.message, rule };
}

/** The field a generated message starts with (`config[2].alias: Duplicate value: ...`). */
export function fieldOfMessage(message: string): FieldPath {
  const field = /^([A-Za-z0-9_.\-[\]/]+?): /.exec(message)?.[1];
  if (!field) return FieldPath.empty;
  let path = FieldPath.empty;
  for (const part of field.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    if (part[1] !== undefined) path = path.child(part[1]);
    else if (part[2] !== undefined)
      path = /^\d+$/.test(part[2]) ? path.index(Number(part[2])) : path.key(part[2]);
  }
  return path;
}

/** A CRD's error as a problem, as `validate` reports the CRD's layer (its message names the rule). */
function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function problemOf(stage: Problem["stage"], error: FieldError): Problem {
  return { stage, field: error.field, type: causeType(error), message: formatFieldError(error) };
}
