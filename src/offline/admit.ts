import { causeType, formatFieldError, splitCauseMessage } from "../admission/field-errors.js";
import { mutate, validateWithWarnings } from "../admission/handler.js";
import type { PatchOperation } from "../admission/json-patch.js";
import { unchangedAt } from "../admission/ratchet.js";
import type { AdmissionRequest, AdmissionResponse } from "../admission/review.js";
import type { RuleActions } from "../admission/rule-actions.js";
import { type Warning, warningText } from "../admission/warning.js";
import { WorkBudget } from "../budget/work-budget.js";
import { pruneAndDefault } from "../validation/prune-default.js";
import { applyPatch } from "./apply-patch.js";
import { withoutDuplicates } from "./duplicates.js";
import type { OfflineKind } from "./kinds.js";

/** Where in the API server's path a problem was found. */
export type Stage = "schema" | "cel" | "mutating-webhook" | "validating-webhook";

export interface Problem {
  stage: Stage;
  /** The field path, `spec.config.replicas`; empty when the problem is about the whole object. */
  field: string;
  /** The StatusCause type (`FieldValueInvalid`), or `Warning`. */
  type: string;
  /** In kubectl's wording, field path first: `spec.config.replicas: Invalid value: 7: ...`. */
  message: string;
  /** The webhook rule that found it (`module.config-value`), for webhook errors and tagged warnings. */
  rule?: string;
}

export interface OfflineVerdict {
  allowed: boolean;
  errors: Problem[];
  warnings: Problem[];
  /** The mutating webhook's patch, against the defaulted object. */
  patch: PatchOperation[];
}

/**
 * The verdict the cluster would give on one object, in the API server's order: the CRD's structural
 * schema applied on decoding (defaults, pruning), the mutating webhook (through the same handler the
 * server calls; the API server defaults and prunes its result again), the schema's types and formats
 * and the CEL rules (transition rules when there is an old object), then the validating webhook.
 * A type error stops there, as in the API server (nothing after it can trust the types); the CEL
 * layer does not stop the validating webhook, so one run shows every problem either layer finds.
 */
export async function admitOffline(
  kind: OfflineKind,
  object: unknown,
  oldObject?: unknown,
  ruleActions?: RuleActions,
): Promise<OfflineVerdict> {
  const decoded = pruneAndDefault(kind.crdSchema, object);
  const previous = oldObject === undefined ? undefined : pruneAndDefault(kind.crdSchema, oldObject).object;
  const verdict: OfflineVerdict = { allowed: true, errors: [], warnings: [], patch: [] };
  const request = admissionRequest(kind, decoded.object, previous);
  const mutation = mutate(kind.kind, request);
  if (!mutation.allowed) verdict.errors.push(...denial("mutating-webhook", mutation));
  verdict.patch = mutation.patch ? JSON.parse(Buffer.from(mutation.patch, "base64").toString("utf8")) : [];
  const current =
    verdict.patch.length === 0
      ? decoded
      : pruneAndDefault(kind.crdSchema, applyPatch(decoded.object, verdict.patch));
  const pruned = [...new Set([...decoded.pruned, ...current.pruned])];
  verdict.warnings.push(
    ...pruned.map(
      (field): Problem => ({ stage: "schema", field, type: "Warning", message: `unknown field "${field}"` }),
    ),
  );
  verdict.warnings.push(...(mutation.warnings ?? []).map((text) => warning("mutating-webhook", text)));

  // One object, one budget: its schema check and the webhook's rules share it, as one review does.
  const budget = new WorkBudget();
  const structure = kind.checkStructure(current.object, budget);
  // The API server ratchets its schema validation too (KEP-4008): on UPDATE, values left unchanged pass.
  const schemaErrors =
    previous === undefined
      ? structure.errors
      : structure.errors.filter((error) => !unchangedAt(current.object, previous, error.field));
  verdict.errors.push(...schemaErrors.map((error) => problem("schema", error)));
  if (verdict.errors.length > 0) return { ...verdict, allowed: false };
  // Beside the keywords and not blocking the CEL rules, as in the API server's strategy.
  const customResource = kind.checkCustomResource(current.object, previous);
  verdict.errors.push(...customResource.map((error) => problem("schema", error)));
  verdict.errors.push(...kind.checkRules(current.object, previous).map((error) => problem("cel", error)));
  const { response: validation, warnings } = await validateWithWarnings(
    kind.kind,
    { ...request, object: current.object },
    { ruleActions, budget },
  );
  if (!validation.allowed) verdict.errors.push(...denial("validating-webhook", validation));
  verdict.warnings.push(...warnings.map((w) => warning("validating-webhook", w)));
  verdict.errors = withoutDuplicates(verdict.errors);
  return { ...verdict, allowed: verdict.errors.length === 0 };
}

/** A webhook's warning, located at the field it starts with, if it names one (most do), with its rule. */
function warning(stage: Stage, given: Warning): Problem {
  const text = warningText(given);
  const rule = typeof given === "string" ? {} : { rule: given.rule };
  return { stage, field: leadingField(text), type: "Warning", message: text, ...rule };
}

function leadingField(warning: string): string {
  return /^((?:spec|config|metadata)(?:\.[\w-]+|\[\d+\])*)(?=[\s:])/.exec(warning)?.[1] ?? "";
}

function problem(stage: Stage, error: Parameters<typeof formatFieldError>[0]): Problem {
  // A bounded check's count of the errors it did not build: said as the webhook's answer says it.
  if (error.omitted !== undefined) {
    return { stage, field: "", type: "FieldValueTooMany", message: `... and ${error.omitted} more errors` };
  }
  return { stage, field: error.field, type: causeType(error), message: formatFieldError(error) };
}

/** A webhook's denial as problems: one per cause, or the status message when it names no field. */
function denial(stage: Stage, response: AdmissionResponse): Problem[] {
  const causes = response.status?.details?.causes ?? [];
  if (causes.length === 0) {
    const reason = response.status?.reason ?? "Denied";
    return [{ stage, field: "", type: reason, message: response.status?.message ?? "denied" }];
  }
  return causes.map((cause) => {
    const { message, rule } = splitCauseMessage(cause.message);
    return {
      stage,
      field: cause.field,
      type: cause.type,
      message: cause.field ? `${cause.field}: ${message}` : message,
      ...(rule ? { rule } : {}),
    };
  });
}

/** The AdmissionRequest the API server would send for a create (or, with an old object, an update). */
function admissionRequest(kind: OfflineKind, object: unknown, oldObject: unknown): AdmissionRequest {
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } }).metadata ?? {};
  const { group, version } = kind.kind;
  return {
    uid: "offline",
    kind: { group, version, kind: kind.kind.kind },
    resource: { group, version, resource: kind.source.crd.names.plural },
    ...(typeof metadata.name === "string" ? { name: metadata.name } : {}),
    ...(kind.source.crd.scope === "Namespaced"
      ? { namespace: typeof metadata.namespace === "string" ? metadata.namespace : "default" }
      : {}),
    operation: oldObject === undefined ? "CREATE" : "UPDATE",
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
    dryRun: true,
  };
}
