import { Buffer } from "node:buffer";
import { randomInt } from "node:crypto";
import { fitVerdict, moreErrors } from "../admission/answer.js";
import { causeType, type FieldError, formatFieldError } from "../admission/field-errors.js";
import { judgeMutation, judgeValidation } from "../admission/handler.js";
import type { PatchOperation } from "../admission/json-patch.js";
import type { ResourceKind } from "../admission/resource-kind.js";
import type { AdmissionRequest } from "../admission/review.js";
import type { RuleActions } from "../admission/rule-actions.js";
import { type RuleStatus, ruleStatuses } from "../admission/rule-status.js";
import type { ReviewVerdict } from "../admission/verdict.js";
import { type Warning, warningField, warningRule, warningText } from "../admission/warning.js";
import type { ServerWarning } from "../apiextensions/custom-resource.js";
import { goKeyOrder } from "../apiextensions/decode.js";
import { decodeObjectMeta } from "../apiextensions/object-meta.js";
import { writeJson } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";
import { dns1123LabelProblems } from "../validation/names.js";
import { pruneAndDefault } from "../validation/prune-default.js";
import { applyPatch } from "./apply-patch.js";
import { withCelRule } from "./cel-rule.js";
import { type Client, isKubectl, sentBy } from "./client.js";
import type { OfflineKind } from "./kinds.js";
import { notReached, withProblems } from "./rule-statuses.js";
import { recordedWarnings } from "./server-warnings.js";

/** Where in the API server's path a problem was found. */
export type Stage =
  | "decode"
  | "metadata"
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
  /**
   * The StatusCause type (`FieldValueInvalid`); for a request refused whole, the Status reason
   * (`BadRequest`, `NotFound`); or `Warning`.
   */
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
  /** The object as the API server would store it (mutated, defaulted); undefined when refused. */
  stored?: Record<string, unknown>;
  /**
   * What became of each webhook rule (`rule-status.ts`): judged (pass, fail, warn) or skipped, and why.
   * Absent for the native policies' verdict (`validate --policies`), which no webhook rule gives.
   */
  rules?: RuleStatus[];
}

/**
 * The verdict the cluster would give on one object, in the API server's order: what the client sends
 * (`client`: kubectl apply drops null fields and asks for strict field validation, a GitOps tool sends
 * the object as it is), decoded as the CRD's custom resource handler decodes it (unknown fields an
 * error or a warning, defaults filled in); the mutating webhook (through the same handler `serve` runs;
 * its result decoded and defaulted again); the custom resource strategy (metadata, schema, embedded
 * resources, list types, CEL rules: ../apiextensions/custom-resource.ts); and, only when that passed,
 * the validating webhook. Errors and warnings are those the API server answers with.
 */
export async function admitOffline(
  kind: OfflineKind,
  object: unknown,
  oldObject?: unknown,
  ruleActions?: RuleActions,
  client: Client = "gitops",
  namespace = defaultNamespace,
  jsonBytesAtMost?: number,
): Promise<OfflineVerdict> {
  const verdict = await judge(kind, object, oldObject, ruleActions, client, namespace, jsonBytesAtMost);
  const rules = withProblems(
    verdict.rules ?? notReached(kind.kind, verdict.errors[0]?.stage),
    verdict.errors,
    verdict.warnings,
  );
  return { ...verdict, warnings: recordedWarnings(verdict.warnings), rules };
}

/**
 * admitOffline's verdict before the API server's warning recorder bounds its warnings.
 * `jsonBytesAtMost`: a bound the caller knows on the JSON size of what the client sends (the plain
 * block reader's, from the document's length): within the API server's limit, the body is not written
 * out to be measured.
 */
async function judge(
  kind: OfflineKind,
  object: unknown,
  oldObject?: unknown,
  ruleActions?: RuleActions,
  client: Client = "gitops",
  requestNamespace = defaultNamespace,
  jsonBytesAtMost?: number,
): Promise<OfflineVerdict> {
  const verdict: OfflineVerdict = { allowed: true, errors: [], warnings: [], patch: [] };
  const refuse = (message: string, type = "BadRequest"): OfflineVerdict => {
    verdict.errors.push({ stage: "decode", field: FieldPath.empty, type, message });
    return { ...verdict, allowed: false };
  };
  if (!isRecord(object)) return refuse("the object is not a JSON object");
  if (isKubectl(client) && Object.hasOwn(object, "metadata")) {
    // kubectl reads the manifest's metadata as ObjectMeta before it sends anything.
    const read = decodeObjectMeta(object.metadata, "metadata", { struct: "metadataOnlyObject" });
    if (read.error !== undefined) return refuse(`kubectl: unable to decode: ${read.error}`, "KubectlDecode");
  }
  const unnamed = client === "kubectl" ? unnamedForApply(object.metadata) : undefined;
  if (unnamed !== undefined) return refuse(`kubectl: ${unnamed}`, "KubectlApply");
  const body = sentBy(client, object, kind.source.crd.scope === "Namespaced");
  // kubectl's body carries the manifest twice (the last-applied annotation): it may pass 3 MiB alone.
  const surelyFits = jsonBytesAtMost !== undefined && jsonBytesAtMost <= limits.objectBytes;
  if (!surelyFits && Buffer.byteLength(writeJson(body)) > limits.objectBytes)
    return refuse(`Request entity too large: limit is ${limits.objectBytes}`, "RequestEntityTooLarge");
  const decoded = kind.server.decode(body, isKubectl(client));
  if (decoded.error !== undefined || !decoded.object) return refuse(decoded.error ?? "cannot be decoded");
  const pruned = new Map(decoded.pruned.map((field) => [`unknown field "${field}"`, field]));
  // The webhook's rule for the same finding (`module.unknown-field`): its rule action applies here too,
  // as serve applies it to the webhook's warning.
  const unknownRule = kind.kind.declarations?.find((rule) => rule.id.endsWith(".unknown-field"))?.id;
  if (unknownRule === undefined || ruleActions?.get(unknownRule) !== "off") {
    for (const message of decoded.unknownFields) {
      verdict.warnings.push({
        stage: "schema",
        field: pruned.get(message) ?? FieldPath.empty,
        type: "Warning",
        message,
        ...(unknownRule ? { rule: unknownRule } : {}),
      });
    }
  }
  // A namespace that is no DNS label can never exist: the API server answers that it is not found.
  const namespace = namespaceOf(kind, decoded.object, requestNamespace);
  if (namespace !== undefined && dns1123LabelProblems(namespace).length > 0)
    return refuse(`namespaces ${JSON.stringify(namespace)} not found`, "NotFound");
  // The request's namespace, on CREATE as on UPDATE: kubectl's (or a GitOps tool's) for a manifest that
  // names none, the old object's too (it is stored where the update goes).
  const placed = withServerNamespace(kind, decoded.object, namespace);
  const previous = isRecord(oldObject) ? storedAs(kind, oldObject, namespace) : undefined;
  // A CREATE's managedFields are the server's to write: the request's are discarded.
  const created = previous === undefined ? withoutManagedFields(placed) : placed;
  const request = admissionRequest(kind, created, previous);
  const mutation = judgeMutation(kind.kind, request);
  const mutated = verdictProblems("mutating-webhook", kind.kind, request, mutation);
  verdict.errors.push(...mutated.errors);
  verdict.warnings.push(...mutated.warnings);
  verdict.patch = mutation.patch;
  if (verdict.errors.length > 0) return { ...verdict, allowed: false };
  // The API server decodes the patched object again and writes it on in Go's key order.
  const repatched = () =>
    goKeyOrder(pruneAndDefault(kind.crdSchema, applyPatch(created, verdict.patch)).object) as Record<
      string,
      unknown
    >;
  const patched = withGeneratedName(verdict.patch.length === 0 ? created : repatched());
  const prepared = previous === undefined ? withFirstGeneration(patched) : patched;
  const current = withStatusAsTheStrategyLeavesIt(
    kind,
    withMetadataKeptOnUpdate(prepared, previous),
    previous,
  );

  const strategy = kind.server.validate(current, previous);
  verdict.errors.push(...strategy.errors.map(({ stage, error }) => withCelRule(kind, problem(stage, error))));
  verdict.warnings.push(...strategy.warnings.map((warning) => withCelRule(kind, serverWarning(warning))));
  if (verdict.errors.length > 0) return { ...verdict, allowed: false };

  // One object, one review: judgeValidation begins it, with its one work budget.
  const validating = admissionRequest(kind, current, previous);
  const validation = await judgeValidation(kind.kind, validating, { ruleActions });
  const validated = verdictProblems("validating-webhook", kind.kind, validating, validation);
  verdict.errors.push(...validated.errors);
  verdict.warnings.push(...validated.warnings);
  const allowed = verdict.errors.length === 0;
  const rules = ruleStatuses(kind.kind, validating, validation, ruleActions);
  return { ...verdict, allowed, rules, ...(allowed ? { stored: current } : {}) };
}

/** kubectl's namespace when neither the manifest nor `--namespace` names one. */
export const defaultNamespace = "default";

/** The namespace a namespaced object is created in: its own, else the request's (kubectl's). */
function namespaceOf(
  kind: OfflineKind,
  object: Record<string, unknown>,
  requestNamespace: string,
): string | undefined {
  if (kind.source.crd.scope !== "Namespaced") return undefined;
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  return typeof metadata.namespace === "string" && metadata.namespace !== ""
    ? metadata.namespace
    : requestNamespace;
}

/** The request's namespace set where the manifest names none, as the API server sets it before the webhooks. */
function withServerNamespace(
  kind: OfflineKind,
  object: Record<string, unknown>,
  namespace: string | undefined,
): Record<string, unknown> {
  const metadata = { ...(isRecord(object.metadata) ? object.metadata : {}) };
  if (kind.source.crd.scope === "Namespaced" && !metadata.namespace && namespace !== undefined)
    metadata.namespace = namespace;
  return { ...object, metadata };
}

/**
 * The old object as the cluster holds it: decoded under whatever the CRD was then, in the update's
 * namespace, and, for a manifest, created through the mutating webhook (its patch decoded and defaulted
 * again), as it was when stored. A managed Workspace's manifest without `connection` is stored with the
 * connection the webhook sets; judged against the manifest as written, every update of it would change
 * that field. An object read from a cluster (it has a resourceVersion: `kubectl get -o yaml`, audit) is
 * already what the store holds, mutated or not by whatever webhooks ran when it was written (a legacy
 * object stored before the webhook holds no injected field): it is taken as it is.
 */
function storedAs(
  kind: OfflineKind,
  oldObject: Record<string, unknown>,
  namespace: string | undefined,
): Record<string, unknown> | undefined {
  const decoded = kind.server.decode(oldObject, false).object;
  if (decoded === undefined) return undefined;
  const old = withServerNamespace(kind, decoded, namespace);
  if (readFromCluster(old)) return old;
  const { patch } = judgeMutation(kind.kind, admissionRequest(kind, old, undefined));
  if (patch.length === 0) return old;
  return goKeyOrder(pruneAndDefault(kind.crdSchema, applyPatch(old, patch)).object) as Record<
    string,
    unknown
  >;
}

/** Whether an object was read from a cluster: the store gives every object a resourceVersion. */
function readFromCluster(object: Record<string, unknown>): boolean {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  return typeof metadata.resourceVersion === "string" && metadata.resourceVersion !== "";
}

/**
 * For a generateName, the name the store gives the object after the mutating webhooks (which see it
 * unnamed) and before its validation: the generateName cut to 58 characters (apiserver's
 * SimpleNameGenerator, maxGeneratedNameLength = 63 - 5), then five random characters from the alphabet
 * Kubernetes draws from. The generateName itself is still checked whole, as a prefix.
 */
function withGeneratedName(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  if (metadata.name || typeof metadata.generateName !== "string" || metadata.generateName === "")
    return object;
  const name = metadata.generateName.slice(0, maxGeneratedNameLength) + generatedSuffix();
  return { ...object, metadata: { ...metadata, name } };
}

const maxGeneratedNameLength = 58;

/**
 * The request's managedFields on CREATE: the field manager (before admission) decodes them, drops what
 * it cannot decode (an unknown operation, a fieldsType other than FieldsV1) and writes its own, so
 * validation never sees the request's.
 */
function withoutManagedFields(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? object.metadata : undefined;
  if (!metadata || !Object.hasOwn(metadata, "managedFields")) return object;
  const { managedFields: _discarded, ...rest } = metadata;
  return { ...object, metadata: rest };
}

/** The custom resource strategy's PrepareForCreate: generation 1, whatever the request says. */
function withFirstGeneration(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  return { ...object, metadata: { ...metadata, generation: 1 } };
}

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

function generatedSuffix(): string {
  return Array.from({ length: 5 }, () => suffixAlphabet[randomInt(suffixAlphabet.length)]).join("");
}

/**
 * What the API server keeps of the stored object's metadata on an UPDATE, whatever the request says:
 * its uid when the request has none, its creation and deletion timestamps, its deletion grace period.
 */
function withMetadataKeptOnUpdate(
  object: Record<string, unknown>,
  previous: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (previous === undefined) return object;
  const old = isRecord(previous.metadata) ? previous.metadata : {};
  const metadata = { ...(isRecord(object.metadata) ? object.metadata : {}) };
  if (!metadata.uid && old.uid) metadata.uid = old.uid;
  for (const key of ["creationTimestamp", "deletionTimestamp"]) if (old[key]) metadata[key] = old[key];
  if (old.deletionGracePeriodSeconds !== undefined && metadata.deletionGracePeriodSeconds === undefined)
    metadata.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  return { ...object, metadata };
}

/** A kind with a status subresource: status is dropped on create and kept as it was on update. */
function withStatusAsTheStrategyLeavesIt(
  kind: OfflineKind,
  object: Record<string, unknown>,
  previous: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!kind.source.crd.subresources?.status) return object;
  const { status: _dropped, ...rest } = object;
  if (previous === undefined || !Object.hasOwn(previous, "status")) return rest;
  return { ...rest, status: previous.status };
}

function serverWarning(warning: ServerWarning): Problem {
  return { stage: "cel", field: warning.field, type: "Warning", message: warning.message };
}

/**
 * A webhook's verdict as problems: exactly what its AdmissionResponse shows (`fitVerdict`, the same
 * bounds on causes and warnings), from the structure, with each error's rule and each warning's rule
 * and field. A request the kind cannot judge, or an answer the server could not send (over 1 MiB), is
 * the one error the server would answer.
 */
export function verdictProblems(
  stage: Stage,
  kind: ResourceKind,
  request: AdmissionRequest,
  review: ReviewVerdict,
): { errors: Problem[]; warnings: Problem[] } {
  const { shown, status, unfit } = fitVerdict(kind, request, review);
  if (unfit !== undefined || status?.code === 400) {
    const [type, message] =
      unfit === undefined
        ? [status?.reason ?? "Denied", status?.message ?? "denied"]
        : ["InternalError", `internal error: ${unfit}`];
    return { errors: [{ stage, field: FieldPath.empty, type, message }], warnings: [] };
  }
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * kubectl apply needs a name to look the object up before it creates it: it refuses a generateName
 * (apply.go: "cannot use generate name with apply"), and client-go refuses to ask for an empty name.
 */
function unnamedForApply(metadata: unknown): string | undefined {
  const { name, generateName } = (isRecord(metadata) ? metadata : {}) as {
    name?: unknown;
    generateName?: unknown;
  };
  if (typeof name === "string" && name !== "") return undefined;
  if (typeof generateName === "string" && generateName !== "")
    return `from ${generateName}: cannot use generate name with apply`;
  return "resource name may not be empty";
}
