/**
 * Judges an AdmissionRequest for one resource kind: the protocol half of a webhook. It knows the AdmissionReview rules (operations, patches, denial status) and nothing of any
 * kind's fields; those come from the kind's Validator and Defaulter. Each review is judged into one
 * structured `ReviewVerdict` (`verdict.ts`); `answer.ts` turns it into the answer, and
 * `module-admission validate` the same verdict into its findings.
 */

import { FieldPath } from "../base/field-path.js";
import { boundedJson, limits, truncate } from "../base/limits.js";
import { type WorkBudget, WorkBudgetExceeded } from "../budget/work-budget.js";
import { admissionResponse } from "./answer.js";
import { cutTooDeep, tooDeepAt } from "./depth.js";
import type { FieldError, FieldErrorList } from "./field-errors.js";
import { diffToPatch } from "./json-patch.js";
import { type RatchetedVerdict, ratchetUpdate } from "./ratchet.js";
import type { ResourceKind, Validator } from "./resource-kind.js";
import type { AdmissionRequest, AdmissionResponse } from "./review.js";
import { beginReview, type ReviewContext } from "./review-context.js";
import { applyRuleActions, type RuleActions, withoutSilenced } from "./rule-actions.js";
import { type ReviewVerdict, verdictOf } from "./verdict.js";
import { fitWarning, type Warning } from "./warning.js";

/** What a deployment sets for every kind alike: rule actions, and who hears of ratcheted updates. */
export interface ValidateOptions {
  ruleActions?: RuleActions;
  /** Called for an UPDATE admitted only because ratcheting spared errors its object has. */
  onRatcheted?: (kind: ResourceKind) => void;
  /**
   * A budget of the caller's, for a caller that measures what the review spends (tests, the benchmark);
   * otherwise the review begins with its own (`beginReview`).
   */
  budget?: WorkBudget;
}

const admitted = (): ReviewVerdict => verdictOf();

export async function validate(
  kind: ResourceKind,
  request: AdmissionRequest,
  options: ValidateOptions = {},
): Promise<AdmissionResponse> {
  return admissionResponse(kind, request, await judgeValidation(kind, request, options));
}

export function mutate(kind: ResourceKind, request: AdmissionRequest): AdmissionResponse {
  return admissionResponse(kind, request, judgeMutation(kind, request));
}

/**
 * The validating review's verdict: every rule of the kind, rule actions applied, ratcheted on UPDATE.
 * Warnings of rules turned off (`--rule-action ID=off`) are dropped.
 */
export async function judgeValidation(
  kind: ResourceKind,
  request: AdmissionRequest,
  options: ValidateOptions = {},
): Promise<ReviewVerdict> {
  const gate = withoutRules(kind, request) ?? tooDeep(request);
  if (gate && gate !== storedTooDeep) return gate;
  if (!kind.validator) return admitted();
  const { judged, deep } = gate === storedTooDeep ? cutBoth(request) : { judged: request, deep: undefined };
  let judgement: RatchetedVerdict;
  try {
    const context = beginReview(judged, options.budget);
    judgement = await judge(kind.validator as Validator<unknown>, context, options.ruleActions);
  } catch (error) {
    if (!(error instanceof WorkBudgetExceeded)) throw error;
    return { ...admitted(), errors: [outOfWork(error)], outOfWork: true };
  }
  const { unjudged } = judgement;
  const errors = deep ? [...deep.errors, ...judgement.errors] : judgement.errors;
  const warnings = deep ? [...deep.warnings, ...judgement.warnings] : judgement.warnings;
  const ratcheted = judgement.spared.length > 0;
  if (errors.length === 0 && ratcheted) options.onRatcheted?.(kind);
  const verdict = {
    ...admitted(),
    errors,
    warnings: withoutSilenced(warnings, options.ruleActions),
    ratcheted,
  };
  return unjudged ? { ...verdict, unjudged } : verdict;
}

/** The mutating review's verdict: the kind's defaults as a JSON Patch. */
export function judgeMutation(kind: ResourceKind, request: AdmissionRequest): ReviewVerdict {
  const gate = withoutRules(kind, request) ?? tooDeep(request);
  if (gate === storedTooDeep) {
    const warning = `nested more than ${limits.depth} levels deep, as before: not defaulted`;
    return { ...admitted(), warnings: [warning] };
  }
  if (gate || !kind.defaulter) return gate ?? admitted();
  const oldObject = request.operation === "UPDATE" ? request.oldObject : undefined;
  const defaulted = kind.defaulter.applyDefaults(request.object, request, oldObject);
  return { ...admitted(), patch: diffToPatch(request.object, defaulted) };
}

/**
 * Every rule of the kind, with rule actions applied, and on UPDATE ratcheted: state errors the old
 * object already had warn instead of denying; update-only rules always deny.
 */
async function judge(
  validator: Validator<unknown>,
  context: ReviewContext,
  ruleActions: RuleActions | undefined,
): Promise<RatchetedVerdict> {
  const { request } = context;
  const state = await validator.validate(request.object, context);
  const stateActions = applyRuleActions(state.errors, ruleActions);
  if (request.operation !== "UPDATE") {
    const created: RatchetedVerdict = {
      errors: stateActions.errors,
      warnings: [...state.warnings, ...stateActions.warnings],
      spared: [],
    };
    // Only a gate that stopped every rule says so (a cold path): a judged review carries nothing more.
    if (state.unjudged) created.unjudged = state.unjudged;
    return created;
  }
  const ratcheted = await ratchetUpdate(validator, context, stateActions.errors);
  const transition = validator.validateTransition
    ? await validator.validateTransition(request.oldObject, request.object, context)
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
    ...(state.unjudged && { unjudged: state.unjudged }),
  };
}

/**
 * A required check that ran out of the review's work: the object is denied (never admitted unjudged),
 * with a cause that says which work it was, so that its author can make it smaller.
 */
function outOfWork(error: WorkBudgetExceeded): FieldError {
  return {
    type: "forbidden",
    field: error.field ?? FieldPath.empty,
    detail: `${error.what} exceeds the webhook's work budget (${error.allowance}); make the object smaller`,
    rule: "webhook.work-budget",
  };
}

/** The verdict on requests no rule looks at, or that are not this kind's; undefined when rules apply. */
function withoutRules(kind: ResourceKind, request: AdmissionRequest): ReviewVerdict | undefined {
  if (request.operation === "DELETE" || request.operation === "CONNECT")
    return { ...admitted(), unjudged: "operation" };
  const mismatch = kindMismatch(kind, request);
  return mismatch === undefined ? undefined : { ...admitted(), badRequest: mismatch };
}

/** What `tooDeep` answers for an update of an object stored too deep already. */
const storedTooDeep = "stored too deep";

/**
 * An object nested deeper than any rule may safely walk is denied with the field where it gets too
 * deep, before any rule runs. An update of an object stored that deep already is not (`storedTooDeep`):
 * defaulting leaves it alone, and validation judges it cut at that depth (`cutBoth`), since only
 * problems an update introduces may deny it.
 */
function tooDeep(request: AdmissionRequest): ReviewVerdict | typeof storedTooDeep | undefined {
  const field = tooDeepAt(request.object);
  if (field === undefined) return undefined;
  if (request.operation === "UPDATE" && tooDeepAt(request.oldObject) !== undefined) return storedTooDeep;
  const error: FieldError = {
    type: "invalid",
    field,
    detail: `nested more than ${limits.depth} levels deep; this webhook judges objects up to that depth`,
  };
  return { ...admitted(), errors: [error], unjudged: "too-deep" };
}

/**
 * An UPDATE of an object stored nested too deep: both objects are judged cut at that depth (each deep
 * value replaced by a fingerprint), so that an old deep value never switches off the other rules. A
 * deep value the update left as it was warns; one it changed or added denies, as on CREATE.
 */
function cutBoth(request: AdmissionRequest): {
  judged: AdmissionRequest;
  deep: { errors: FieldErrorList; warnings: Warning[] };
} {
  const cut = cutTooDeep(request.object);
  const oldCut = cutTooDeep(request.oldObject);
  const errors: FieldErrorList = [];
  const warnings: Warning[] = [];
  for (const [rendered, { field, mark }] of cut.cuts) {
    if (oldCut.cuts.get(rendered)?.mark === mark) {
      if (warnings.length < limits.listErrors) {
        const message = fitWarning(
          `${truncate(rendered, 40)}: nested more than ${limits.depth} levels deep, as before`,
        );
        warnings.push({ message, field });
      }
    } else if (errors.length < limits.listErrors) {
      const detail = `nested more than ${limits.depth} levels deep; this webhook judges objects up to that depth`;
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
