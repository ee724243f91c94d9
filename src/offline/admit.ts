import { causeType, type FieldError, fieldError, formatFieldError } from "../admission/field-errors.js";
import { FieldPath } from "../admission/field-path.js";
import {
  admissionResponse,
  judgeMutation,
  judgeValidation,
  moreErrors,
  type ReviewVerdict,
  shownVerdict,
} from "../admission/handler.js";
import type { PatchOperation } from "../admission/json-patch.js";
import { unchangedAt } from "../admission/ratchet.js";
import type { ResourceKind } from "../admission/resource-kind.js";
import { type AdmissionRequest, encodeReview } from "../admission/review.js";
import type { RuleActions } from "../admission/rule-actions.js";
import { type Warning, warningField, warningRule, warningText } from "../admission/warning.js";
import {
  embeddedDecodeErrors,
  finalizerWarnings,
  objectMetaDecodeError,
  rootMetadataErrors,
} from "../apiextensions/embedded-object-meta.js";
import { WorkBudget } from "../budget/work-budget.js";
import { pruneAndDefault } from "../validation/prune-default.js";
import { applyPatch } from "./apply-patch.js";
import { withoutDuplicates } from "./duplicates.js";
import type { OfflineKind } from "./kinds.js";

/** Where in the API server's path a problem was found. */
export type Stage =
  | "schema"
  | "cel"
  | "mutating-webhook"
  | "validating-webhook"
  // The native admission policies (validate --policies).
  | "mutating-policy"
  | "validating-policy";

/** One problem found on one object, before `validate` or `audit` places it in a file or a report. */
export interface Problem {
  stage: Stage;
  /** The field it is about; empty when the problem is about the whole object. */
  field: FieldPath;
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
  const undecodable = decodeFailure(kind, object);
  if (undecodable) return { allowed: false, errors: [undecodable], warnings: [], patch: [] };
  const decoded = pruneAndDefault(kind.crdSchema, object);
  const previous = oldObject === undefined ? undefined : pruneAndDefault(kind.crdSchema, oldObject).object;
  const verdict: OfflineVerdict = { allowed: true, errors: [], warnings: [], patch: [] };
  const request = admissionRequest(kind, decoded.object, previous);
  const mutation = judgeMutation(kind.kind, request);
  const mutated = verdictProblems("mutating-webhook", kind.kind, request, mutation);
  verdict.errors.push(...mutated.errors);
  verdict.warnings.push(...mutated.warnings);
  verdict.patch = mutation.patch;
  const current =
    verdict.patch.length === 0
      ? decoded
      : pruneAndDefault(kind.crdSchema, applyPatch(decoded.object, verdict.patch));
  const pruned = new Map([...decoded.pruned, ...current.pruned].map((field) => [field.toString(), field]));
  // The webhook's rule for the same finding (`module.unknown-field`): its rule action applies here too,
  // as serve applies it to the webhook's warning.
  const unknownRule = kind.kind.declarations?.find((rule) => rule.id.endsWith(".unknown-field"))?.id;
  const unknown = [...pruned].map(
    ([shown, field]): Problem => ({
      stage: "schema",
      field,
      type: "Warning",
      message: `unknown field "${shown}"`,
      ...(unknownRule ? { rule: unknownRule } : {}),
    }),
  );
  if (unknownRule === undefined || ruleActions?.get(unknownRule) !== "off")
    verdict.warnings.unshift(...unknown);
  const metadataOf = (o: unknown) => (o as { metadata?: unknown } | null | undefined)?.metadata;
  for (const message of finalizerWarnings(metadataOf(current.object), metadataOf(previous))) {
    verdict.warnings.push({ stage: "schema", field: finalizersPath, type: "Warning", message });
  }

  // One object, one budget: its schema check and the webhook's rules share it, as one review does.
  const budget = new WorkBudget();
  const crd = crdLayer(kind, current.object, previous, budget);
  verdict.errors.push(...crd.problems);
  // A type error stops there: the webhook's rules could not trust the types.
  if (crd.schemaFailed) return { ...verdict, errors: withoutDuplicates(verdict.errors), allowed: false };
  const validating = { ...request, object: current.object };
  const validation = await judgeValidation(kind.kind, validating, { ruleActions, budget });
  const validated = verdictProblems("validating-webhook", kind.kind, validating, validation);
  verdict.errors.push(...validated.errors);
  verdict.warnings.push(...validated.warnings);
  verdict.errors = withoutDuplicates(verdict.errors);
  return { ...verdict, allowed: verdict.errors.length === 0 };
}

/**
 * The API server's own checks of a custom resource, in its custom resource strategy's order
 * (apiextensions-apiserver pkg/registry/customresource): the object's own metadata and the schema's
 * keywords (on UPDATE, values left unchanged pass: KEP-4008), then embedded resources and list types,
 * then the CEL rules unless an error before them is one that blocks them. Each message once, as the
 * server reports it. `schemaFailed`: the metadata or the schema refused it (nothing after can trust
 * the types).
 */
export function crdLayer(
  kind: OfflineKind,
  object: unknown,
  previous: unknown,
  budget: WorkBudget,
): { problems: Problem[]; schemaFailed: boolean } {
  const metadataErrors = rootMetadataErrors((object as { metadata?: unknown } | null)?.metadata);
  const structure = kind.checkStructure(object, budget);
  const schemaErrors = [...metadataErrors, ...structure.errors].filter(
    (error) => previous === undefined || !unchangedAt(object, previous, error.field),
  );
  const customResource = kind.checkCustomResource(object, previous);
  const celErrors = blockingError([...schemaErrors, ...customResource])
    ? kind.hasRules
      ? [rulesNotChecked]
      : []
    : kind.checkRules(object, previous);
  const all = [
    ...schemaErrors.map((error) => problem("schema", error)),
    ...customResource.map((error) => problem("schema", error)),
    ...celErrors.map((error) => problem("cel", error)),
  ];
  const shown = new Set<string>();
  const problems = all.filter((found) => {
    if (shown.has(found.message)) return false;
    shown.add(found.message);
    return true;
  });
  return { problems, schemaFailed: schemaErrors.length > 0 };
}

/**
 * A webhook's verdict as problems: exactly what its AdmissionResponse shows (the same bounds on
 * causes and warnings), from the structure, with each error's rule and each warning's rule and field.
 * An answer the server could not send (over 1 MiB) is the one error the server would answer.
 */
export function verdictProblems(
  stage: Stage,
  kind: ResourceKind,
  request: AdmissionRequest,
  review: ReviewVerdict,
): { errors: Problem[]; warnings: Problem[] } {
  const answer = encodeReview(admissionResponse(kind, request, review)).response;
  if (review.badRequest !== undefined || answer.status?.code === 500) {
    const status = answer.status;
    const type = status?.reason ?? "Denied";
    return {
      errors: [{ stage, field: FieldPath.empty, type, message: status?.message ?? "denied" }],
      warnings: [],
    };
  }
  const shown = shownVerdict(review);
  const errors = shown.errors.map((error) => problem(stage, error));
  if (shown.more > 0) {
    errors.push({
      stage,
      field: FieldPath.empty,
      type: "FieldValueTooMany",
      message: moreErrors(shown.more),
    });
  }
  return { errors, warnings: shown.warnings.map((shownWarning) => warning(stage, shownWarning)) };
}

/** A webhook's warning, at the field its producer named, with its rule. */
function warning(stage: Stage, given: Warning): Problem {
  const rule = warningRule(given);
  const field = warningField(given) ?? FieldPath.empty;
  return { stage, field, type: "Warning", message: warningText(given), ...(rule ? { rule } : {}) };
}

function problem(stage: Stage, error: FieldError): Problem {
  // A bounded check's count of the errors it did not build: said as the webhook's answer says it.
  if (error.omitted !== undefined) {
    return { stage, field: FieldPath.empty, type: "FieldValueTooMany", message: moreErrors(error.omitted) };
  }
  const rule = error.rule ? { rule: error.rule } : {};
  return { stage, field: error.field, type: causeType(error), message: formatFieldError(error), ...rule };
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

/**
 * Errors of the kinds that stop the API server from running a CRD's CEL rules (hasBlockingErr in
 * apiextensions-apiserver's customresource strategy): the rules could not trust the object's shape.
 */
function blockingError(errors: readonly FieldError[]): boolean {
  return errors.some((error) => blockingTypes.has(error.type));
}

const finalizersPath = FieldPath.root("metadata").child("finalizers");

const blockingTypes = new Set<FieldError["type"]>([
  "notSupported",
  "required",
  "tooLong",
  "tooMany",
  "typeInvalid",
]);

/** The API server's error in place of the CEL rules' when an error before them blocks them. */
const rulesNotChecked: FieldError = fieldError.invalid(
  FieldPath.root("<nil>"),
  null,
  "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
);

/**
 * Where Go cannot decode the object's metadata, or an embedded resource's, into an ObjectMeta (a
 * label value that is a number): the API server refuses the request while decoding it (400 Bad
 * Request), before any webhook or validation, with this message alone.
 */
export function decodeFailure(kind: OfflineKind, object: unknown): Problem | undefined {
  const [first] = decodeFailureMessages(kind, object);
  if (first === undefined) return undefined;
  return { stage: "schema", field: FieldPath.empty, type: "BadRequest", message: first };
}

/**
 * Every message the API server may refuse the object with while decoding it: the object's own
 * metadata first (decoded in key order), else each embedded resource's field that does not decode
 * (the server meets them in Go's random map order and names the first it meets).
 */
export function decodeFailureMessages(kind: OfflineKind, object: unknown): string[] {
  const metadata = (object as { metadata?: unknown } | null)?.metadata;
  const rootError = metadata === undefined || metadata === null ? undefined : objectMetaDecodeError(metadata);
  const texts = rootError ? [rootError] : embeddedDecodeErrors(kind.crdSchema, object).map(formatFieldError);
  const { kind: name, version } = kind.kind;
  return texts.map((text) => `${name} in version "${version}" cannot be handled as a ${name}: ${text}`);
}
