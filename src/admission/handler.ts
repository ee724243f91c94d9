import { WorkBudget, WorkBudgetExceeded } from "../budget/work-budget.js";
import { cutTooDeep, maxDepth, tooDeepAt } from "./depth.js";
import {
  causeMessage,
  causeType,
  type FieldError,
  type FieldErrorList,
  formatField,
  formatFieldError,
} from "./field-errors.js";
import { diffToPatch } from "./json-patch.js";
import { boundErrors, boundedJson, limits, truncate } from "./limits.js";
import { type RatchetedVerdict, ratchetUpdate } from "./ratchet.js";
import { qualifiedKind, type ResourceKind, type Validator } from "./resource-kind.js";
import type { AdmissionRequest, AdmissionResponse } from "./review.js";
import { applyRuleActions, type RuleActions, withoutSilenced } from "./rule-actions.js";
import { fitWarning, type Warning, warningText } from "./warning.js";

/**
 * Turns an AdmissionRequest into an AdmissionResponse for one resource kind: the protocol half of a
 * webhook. It knows the AdmissionReview rules (operations, patches, denial status) and nothing of any
 * kind's fields; those come from the kind's Validator and Defaulter.
 */
/** What a deployment sets for every kind alike: rule actions, and who hears of ratcheted updates. */
export interface ValidateOptions {
  ruleActions?: RuleActions;
  /** Called for an UPDATE admitted only because ratcheting spared errors its object has. */
  onRatcheted?: (kind: ResourceKind) => void;
  /**
   * The review's allowance of work; by default a fresh `WorkBudget`. The offline `validate` passes the
   * one its object's schema check already charged, so that one object costs one budget.
   */
  budget?: WorkBudget;
}

export async function validate(
  kind: ResourceKind,
  request: AdmissionRequest,
  options: ValidateOptions = {},
): Promise<AdmissionResponse> {
  return (await validateWithWarnings(kind, request, options)).response;
}

/**
 * `validate`, with its warnings as the rules gave them (their rule ids, for `module-admission validate`);
 * the response carries their text. Warnings of rules turned off (`--rule-action ID=off`) are dropped.
 */
export async function validateWithWarnings(
  kind: ResourceKind,
  request: AdmissionRequest,
  options: ValidateOptions = {},
): Promise<{ response: AdmissionResponse; warnings: Warning[] }> {
  const gate = admitWithoutRules(kind, request) ?? tooDeep(kind, request);
  if (gate && gate !== storedTooDeep) return { response: gate, warnings: gate.warnings ?? [] };
  if (!kind.validator) return { response: { uid: request.uid, allowed: true }, warnings: [] };
  const { judged, deep } = gate === storedTooDeep ? cutBoth(request) : { judged: request, deep: undefined };
  const budget = options.budget ?? new WorkBudget();
  let judgement: RatchetedVerdict;
  try {
    judgement = await judge(kind.validator as Validator<unknown>, judged, options.ruleActions, budget);
  } catch (error) {
    if (!(error instanceof WorkBudgetExceeded)) throw error;
    const status = invalidStatus(kind, request, [outOfWork(error)]);
    return { response: { uid: request.uid, allowed: false, status }, warnings: [] };
  }
  const verdict = deep
    ? {
        ...judgement,
        errors: [...deep.errors, ...judgement.errors],
        warnings: [...deep.warnings, ...judgement.warnings],
      }
    : judgement;
  const shown = withoutSilenced(verdict.warnings, options.ruleActions);
  const warnings = shown.length > 0 ? { warnings: shown.map(warningText) } : {};
  if (verdict.errors.length === 0) {
    if (verdict.spared.length > 0) options.onRatcheted?.(kind);
    return { response: { uid: request.uid, allowed: true, ...warnings }, warnings: shown };
  }
  const response: AdmissionResponse = {
    uid: request.uid,
    allowed: false,
    status: invalidStatus(kind, request, verdict.errors),
    ...warnings,
  };
  return { response, warnings: shown };
}

/**
 * Every rule of the kind, with rule actions applied, and on UPDATE ratcheted: state errors the old
 * object already had warn instead of denying; update-only rules always deny.
 */
async function judge(
  validator: Validator<unknown>,
  request: AdmissionRequest,
  ruleActions: RuleActions | undefined,
  budget: WorkBudget,
): Promise<RatchetedVerdict> {
  const state = await validator.validate(request.object, request, undefined, budget);
  const stateActions = applyRuleActions(state.errors, ruleActions);
  if (request.operation !== "UPDATE") {
    return {
      errors: stateActions.errors,
      warnings: [...state.warnings, ...stateActions.warnings],
      spared: [],
    };
  }
  const ratcheted = await ratchetUpdate(validator, request, stateActions.errors, budget);
  const transition = validator.validateTransition
    ? await validator.validateTransition(request.oldObject, request.object, request, budget)
    : { errors: [], warnings: [] };
  const transitionActions = applyRuleActions(transition.errors, ruleActions);
  return {
    errors: [...ratcheted.errors, ...transitionActions.errors],
    warnings: [
      ...state.warnings,
      ...stateActions.warnings,
      ...ratcheted.warnings,
      ...transition.warnings,
      ...transitionActions.warnings,
    ],
    spared: ratcheted.spared,
  };
}

/**
 * A required check that ran out of the review's work: the object is denied (never admitted unjudged),
 * with a cause that says which work it was, so that its author can make it smaller.
 */
function outOfWork(error: WorkBudgetExceeded): FieldError {
  return {
    type: "forbidden",
    field: error.field ?? "",
    detail: `${error.what} exceeds the webhook's work budget (${error.limit} units per review); make the object smaller`,
    rule: "webhook.work-budget",
  };
}

export function mutate(kind: ResourceKind, request: AdmissionRequest): AdmissionResponse {
  const gate = admitWithoutRules(kind, request) ?? tooDeep(kind, request);
  if (gate === storedTooDeep) {
    const warning = `nested more than ${maxDepth} levels deep, as before: not defaulted`;
    return { uid: request.uid, allowed: true, warnings: [warning] };
  }
  if (gate || !kind.defaulter) return gate ?? { uid: request.uid, allowed: true };
  const oldObject = request.operation === "UPDATE" ? request.oldObject : undefined;
  const defaulted = kind.defaulter.applyDefaults(request.object, request, oldObject);
  const patch = diffToPatch(request.object, defaulted);
  if (patch.length === 0) return { uid: request.uid, allowed: true };
  return {
    uid: request.uid,
    allowed: true,
    patchType: "JSONPatch",
    patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
  };
}

/** The answer for requests no rule looks at, or that are not this kind's; undefined when rules apply. */
function admitWithoutRules(kind: ResourceKind, request: AdmissionRequest): AdmissionResponse | undefined {
  if (request.operation === "DELETE" || request.operation === "CONNECT") {
    return { uid: request.uid, allowed: true };
  }
  const mismatch = kindMismatch(kind, request);
  if (mismatch) {
    return {
      uid: request.uid,
      allowed: false,
      status: { code: 400, reason: "BadRequest", message: mismatch },
    };
  }
  return undefined;
}

/** What `tooDeep` answers for an update of an object stored too deep already. */
const storedTooDeep = "stored too deep";

/**
 * An object nested deeper than any rule may safely walk is denied with the field where it gets too
 * deep, before any rule runs. An update of an object stored that deep already is not (`storedTooDeep`):
 * defaulting leaves it alone, and validation judges it cut at that depth (`cutBoth`), since only
 * problems an update introduces may deny it.
 */
function tooDeep(
  kind: ResourceKind,
  request: AdmissionRequest,
): AdmissionResponse | typeof storedTooDeep | undefined {
  const field = tooDeepAt(request.object);
  if (field === undefined) return undefined;
  if (request.operation === "UPDATE" && tooDeepAt(request.oldObject) !== undefined) return storedTooDeep;
  const error: FieldError = {
    type: "invalid",
    field,
    detail: `nested more than ${maxDepth} levels deep; this webhook judges objects up to that depth`,
  };
  return { uid: request.uid, allowed: false, status: invalidStatus(kind, request, [error]) };
}

/**
 * An UPDATE of an object stored nested too deep: both objects are judged cut at that depth (each deep
 * value replaced by a fingerprint), so that an old deep value never switches off the other rules. A
 * deep value the update left as it was warns; one it changed or added denies, as on CREATE.
 */
function cutBoth(request: AdmissionRequest): {
  judged: AdmissionRequest;
  deep: { errors: FieldErrorList; warnings: string[] };
} {
  const cut = cutTooDeep(request.object);
  const oldCut = cutTooDeep(request.oldObject);
  const errors: FieldErrorList = [];
  const warnings: string[] = [];
  for (const [field, mark] of cut.cuts) {
    if (oldCut.cuts.get(field) === mark) {
      if (warnings.length < limits.listErrors)
        warnings.push(
          fitWarning(`${truncate(field, 40)}: nested more than ${maxDepth} levels deep, as before`),
        );
    } else if (errors.length < limits.listErrors) {
      const detail = `nested more than ${maxDepth} levels deep; this webhook judges objects up to that depth`;
      errors.push({ type: "invalid", field, detail });
    }
  }
  return { judged: { ...request, object: cut.object, oldObject: oldCut.object }, deep: { errors, warnings } };
}

function kindMismatch(kind: ResourceKind, request: AdmissionRequest): string | undefined {
  if (request.kind.group !== kind.group || request.kind.kind !== kind.kind) {
    const expected = `${kind.group}/${kind.version}, Kind=${kind.kind}`;
    const got = `${request.kind.group}/${request.kind.version}, Kind=${request.kind.kind}`;
    return `this webhook admits ${expected} only, but the request is for ${truncate(got, limits.fieldChars)}`;
  }
  if (request.object === null || typeof request.object !== "object" || Array.isArray(request.object)) {
    return `request.object must be a ${kind.kind} object`;
  }
  const object = request.object as { apiVersion?: unknown; kind?: unknown };
  // The core group has no name: a ConfigMap's apiVersion is plain "v1".
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  if (object.kind !== undefined && object.kind !== kind.kind) {
    return `request.object is a ${boundedJson(object.kind, limits.valueChars)}, but this webhook admits ${kind.kind} only`;
  }
  if (object.apiVersion !== undefined && object.apiVersion !== apiVersion) {
    return `request.object has apiVersion ${boundedJson(object.apiVersion, limits.valueChars)}, but this webhook admits ${apiVersion} only`;
  }
  return undefined;
}

/**
 * The Status the API server itself returns for an invalid object (HTTP 422, reason Invalid), with at
 * most `limits.causes` causes: the last one says how many more were found.
 */
function invalidStatus(kind: ResourceKind, request: AdmissionRequest, allErrors: FieldErrorList) {
  const name = truncate(objectName(request), limits.fieldChars);
  const { shown: errors, more } = boundErrors(allErrors);
  const rest =
    more > 0 ? [{ type: "FieldValueTooMany", field: "", message: `... and ${more} more errors` }] : [];
  const lines = [...errors.map(formatFieldError), ...rest.map((cause) => cause.message)];
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(", ")}]`;
  return {
    code: 422,
    reason: "Invalid",
    message: `${qualifiedKind(kind)} ${JSON.stringify(name)} is invalid: ${summary}`,
    details: {
      group: kind.group,
      kind: kind.kind,
      name,
      causes: [
        ...errors.map((error) => ({
          type: causeType(error),
          field: formatField(error),
          message: causeMessage(error),
        })),
        ...rest,
      ],
    },
  };
}

function objectName(request: AdmissionRequest): string {
  if (typeof request.name === "string" && request.name) return request.name;
  const metadata = (request.object as { metadata?: { name?: unknown; generateName?: unknown } }).metadata;
  if (typeof metadata?.name === "string") return metadata.name;
  return typeof metadata?.generateName === "string" ? metadata.generateName : "";
}
