import { hasLongDigitRun, readJson, vouchForDigits } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { limits, truncate } from "../base/limits.js";
import { type FittedVerdict, fitVerdict, objectName, responseOf } from "./answer.js";
import { vouchForDepth, vouchForNesting } from "./depth.js";
import { causeType, type FieldError } from "./field-errors.js";
import { judgeMutation, judgeValidation } from "./handler.js";
import { heapOutgrownBy, scansShape, sentBytesAtLeast, textShape } from "./parse-cost.js";
import { type ResourceKind, webhooksOf } from "./resource-kind.js";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  encodeReview,
  parseAdmissionReview,
} from "./review.js";
import { type ReviewEnvelope, scanEnvelope } from "./review-envelope.js";
import type { RuleActions } from "./rule-actions.js";
import { ruleLabel } from "./rule-label.js";
import type { ReviewVerdict } from "./verdict.js";
import { warningRule } from "./warning.js";

/**
 * The AdmissionReview protocol from a request body's bytes to the answer's JSON text: parse, check the
 * envelope, judge with the path's kind, encode. It runs wherever reviews are judged (in a review
 * worker, `review-pool.ts`; in the calling thread for tests of hand-made kinds); the HTTP layer sees
 * only paths, bytes, the answer's text and the report below, never a kind or a parsed review.
 */
export interface ReviewAnswer {
  /** The HTTP status: 200 for every AdmissionReview answered, 400 for a body that is none. */
  status: number;
  /**
   * The answer's JSON text. Text, not bytes: a worker's answer crosses to the main thread as a string
   * (copied, a few hundred bytes) rather than a transferred ArrayBuffer, and the main thread writes it
   * with the response's head as one string, one write to the socket rather than a writev of two.
   */
  body: string;
  /** What metrics and the review log need; absent when no review was judged (400). */
  report?: ReviewReport;
}

/** One judged review, as metrics and the log see it: labels already bounded to declared values. */
export interface ReviewReport {
  /** The served kind (`Module`): the `kind` label. */
  kind: string;
  allowed: boolean;
  /** A denial's causes: each StatusCause type (or status reason) and rule label. */
  denied?: { type: string; rule: string }[];
  /** The rule labels of the warnings shown (validating reviews only). */
  warned?: string[];
  /** Admitted only because ratcheting spared errors the stored object has. */
  ratcheted?: boolean;
  /** The review log's fields. */
  log: ReviewLogFields;
}

export interface ReviewLogFields {
  uid: string;
  kind: string;
  object: string;
  operation: string;
  dryRun: boolean;
  patched: boolean;
}

/**
 * What is known of a review once its request is read, before its rules run: enough to answer it
 * (a denial naming the object, for its uid) if judging it never finishes.
 */
export interface ReviewInProgress {
  uid: string;
  /** The served kind's identity, as a denial names it. */
  kind: KindIdentity;
  name: string;
  log: ReviewLogFields;
}

/** A served kind as a denial names it. */
export interface KindIdentity {
  group: string;
  version: string;
  kind: string;
}

/** Judges the reviews of some kinds; `onJudging` hears of each review once its request is read. */
export type Judge = (
  path: string,
  body: Uint8Array,
  onJudging?: (review: ReviewInProgress) => void,
) => Promise<ReviewAnswer>;

/** Where reviews are judged, as the HTTP layer sees it: paths in, bytes out. */
export interface Reviewer {
  /** The webhook paths served. */
  readonly paths: ReadonlySet<string>;
  /** `isGone`: whether the client went away; a review not yet begun then need not be judged. */
  review(path: string, body: Uint8Array, isGone?: () => boolean): Promise<ReviewAnswer>;
  /** False while no review could be judged now (workers still starting). */
  isReady(): boolean;
  close(): Promise<void>;
}

export interface JudgeOptions {
  /** `--rule-action`: rules whose errors warn or are off instead of denying. */
  ruleActions?: RuleActions;
  /** Told of a review that failed with an exception (answered as a denial with code 500). */
  onFailure?: (uid: string, error: unknown) => void;
}

interface Route {
  kind: ResourceKind;
  verb: "validate" | "mutate";
}

/**
 * The judge of these kinds' webhook paths, the paths, and each path's kind (with which a review whose
 * judging never read its request is still answered for its uid, `ReviewPool`).
 */
export function judgeOf(
  kinds: readonly ResourceKind[],
  options: JudgeOptions = {},
): { paths: ReadonlySet<string>; judge: Judge; kindOf: ReadonlyMap<string, KindIdentity> } {
  const routes = new Map<string, Route>();
  for (const kind of kinds) {
    for (const { verb, path } of webhooksOf(kind)) routes.set(path, { kind, verb });
  }
  const judge: Judge = async (path, body, onJudging) => {
    const route = routes.get(path);
    if (!route) return jsonAnswer(404, { error: `no webhook at ${JSON.stringify(path)}` });
    const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
    // A large body's text is scanned once for what its parse costs and how deep it nests (the scans
    // cost about a string-heavy body's parse).
    const shape = scansShape(body) ? textShape(text) : undefined;
    // A parse that would fill half the worker's heap is not begun (`heapOutgrownBy`): denied for its uid.
    const outgrownHeapMb = heapOutgrownBy(body, shape);
    // An object larger than any client could have sent is not parsed either (`sentBytesAtLeast`,
    // reckoned only for an object whose text is over the limit).
    const object = shape?.object;
    const objectBytes =
      object && object.end - object.start >= limits.objectBytes
        ? sentBytesAtLeast(text, object.start, object.end)
        : undefined;
    const tooLarge = objectBytes !== undefined && objectBytes > limits.objectBytes;
    if ((onJudging && text.length > envelopeFirstChars) || outgrownHeapMb !== undefined || tooLarge) {
      // Its parse may outgrow the worker's heap, or it is not parsed: known by its uid before, it is
      // answered even then.
      const envelope = scanEnvelope(text);
      const review = envelope && reviewInProgress(route.kind, envelope);
      if (review) onJudging?.(review);
      if (outgrownHeapMb !== undefined) {
        const limit = `${outgrownHeapMb} MiB of memory per review`;
        return review
          ? overBudgetAnswer(review, limit)
          : jsonAnswer(400, { error: `reading the request exceeds the webhook's work budget (${limit})` });
      }
      // Without an envelope it is parsed, and answered 400 for what the envelope lacks.
      if (tooLarge && review) return tooLargeAnswer(review, objectBytes);
    }
    let parsedBody: unknown;
    const longDigitRun = hasLongDigitRun(text);
    try {
      parsedBody = readJson(text, longDigitRun);
    } catch (error) {
      return jsonAnswer(400, { error: `request body is not valid JSON: ${(error as Error).message}` });
    }
    const parsed = parseAdmissionReview(parsedBody);
    if ("problem" in parsed) return jsonAnswer(400, { error: `not an AdmissionReview: ${parsed.problem}` });
    const { request } = parsed;
    const inProgress = reviewInProgress(route.kind, {
      uid: request.uid,
      kind: request.kind.kind,
      name: objectName(request),
      namespace: request.namespace,
      operation: request.operation,
      dryRun: request.dryRun,
    });
    onJudging?.(inProgress);
    if (shape) vouchForNesting(shape.nesting, request.object, request.oldObject);
    else vouchForDepth(text, request.object, request.oldObject);
    vouchForDigits(longDigitRun, request.object, request.oldObject);
    const { response, verdict, fitted, ratcheted } = await reviewSafely(route, request, options);
    const answer = answerWith(route.kind, inProgress, response, fitted);
    if (answer.report && verdict && verdict.warnings.length > 0 && route.verb === "validate") {
      // Counted as the rules gave them, by rule id (the warnings' text carries none).
      const rules = [...(route.kind.rules ?? []), ...(route.kind.warningRules ?? [])];
      answer.report.warned = [
        ...new Set(verdict.warnings.map((warning) => ruleLabel(warningRule(warning), rules))),
      ];
    }
    if (answer.report && ratcheted && response.allowed) answer.report.ratcheted = true;
    return answer;
  };
  const kindOf = new Map(
    [...routes].map(([path, { kind }]) => [
      path,
      { group: kind.group, version: kind.version, kind: kind.kind },
    ]),
  );
  return { paths: new Set(routes.keys()), judge, kindOf };
}

/** Reviews judged in the calling thread: no isolation, for kinds built in a test. */
export function inThreadReviewer(kinds: readonly ResourceKind[], options: JudgeOptions = {}): Reviewer {
  const { paths, judge } = judgeOf(kinds, options);
  return { paths, review: (path, body) => judge(path, body), isReady: () => true, close: async () => {} };
}

/**
 * The answer to a review whose judging was ended because it outgrew the worker's memory or time: a
 * denial for its uid, by the protocol layer's work-budget rule, so that neither a validating nor a
 * mutating webhook leaves the outcome to the API server's failurePolicy.
 */
export function overBudgetAnswer(review: ReviewInProgress, limit: string): ReviewAnswer {
  return protocolDenial(
    review,
    `judging this object exceeds the webhook's work budget (${limit}); make the object smaller`,
  );
}

/**
 * The answer to a review whose object is larger than the API server accepts from a client (3 MiB of
 * JSON): the API server never sends one unless a cluster stores larger objects than etcd's default
 * allows, so it is denied by the work-budget rule before it is parsed (stricter, docs/operations.md).
 */
function tooLargeAnswer(review: ReviewInProgress, bytes: number): ReviewAnswer {
  return protocolDenial(
    review,
    `the object is at least ${bytes} bytes as JSON, over the ${limits.objectBytes} the API server accepts (Request entity too large: limit is ${limits.objectBytes}); make the object smaller`,
  );
}

/** A denial of the whole object by the protocol layer's work-budget rule, for the review's uid. */
function protocolDenial(review: ReviewInProgress, detail: string): ReviewAnswer {
  const error: FieldError = {
    type: "forbidden",
    field: FieldPath.empty,
    detail,
    rule: "webhook.work-budget",
  };
  const verdict: ReviewVerdict = {
    errors: [error],
    warnings: [],
    patch: [],
    ratcheted: false,
    outOfWork: true,
  };
  const request = { uid: review.uid, name: review.name } as AdmissionRequest;
  const fitted = fitVerdict(review.kind as ResourceKind, request, verdict);
  return answerWith(review.kind, review, responseOf(review.uid, fitted), fitted);
}

/** The answer to a review whose worker failed otherwise: a denial with code 500, as for an exception. */
export function failedAnswer(review: ReviewInProgress, problem: string): ReviewAnswer {
  return answerWith(review.kind, review, internalError(review.uid, problem), undefined);
}

/** What is known of a review from its envelope, for the kind served at its path. */
export function reviewInProgress(kind: KindIdentity, request: ReviewEnvelope): ReviewInProgress {
  // The envelope's check leaves name, namespace and the rest unchecked: any JSON value may be there.
  // A map or list is named by its type: String() would call whatever its "toString" key holds, and
  // {"toString": ""} threw (found by the fuzz test).
  const text = (value: unknown) =>
    truncate(
      value === undefined || value === null
        ? ""
        : typeof value === "object"
          ? `(${Array.isArray(value) ? "list" : "map"})`
          : String(value),
      limits.fieldChars,
    );
  const name = text(request.name);
  return {
    uid: request.uid,
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    name,
    log: {
      uid: request.uid,
      kind: text(request.kind),
      object: `${text(request.namespace)}/${name}`,
      operation: text(request.operation),
      dryRun: request.dryRun === true,
      patched: false,
    },
  };
}

/** Bodies longer than this have their envelope read before they are parsed (1 MiB parses into 20 MB at most). */
const envelopeFirstChars = 1024 * 1024;

/**
 * A bug must not turn into a bare 500 (the API server would report a transport error, and with
 * failurePolicy Ignore admit the object unchecked): answer the review, deny, and keep serving.
 */
async function reviewSafely(
  route: Route,
  request: AdmissionRequest,
  options: JudgeOptions,
): Promise<{
  response: AdmissionResponse;
  verdict?: ReviewVerdict;
  fitted?: FittedVerdict;
  ratcheted: boolean;
}> {
  let ratcheted = false;
  try {
    const verdict =
      route.verb === "mutate"
        ? judgeMutation(route.kind, request)
        : await judgeValidation(route.kind, request, {
            ruleActions: options.ruleActions,
            onRatcheted: () => {
              ratcheted = true;
            },
          });
    const fitted = fitVerdict(route.kind, request, verdict);
    return { response: responseOf(request.uid, fitted), verdict, fitted, ratcheted };
  } catch (error) {
    options.onFailure?.(request.uid, error);
    return { response: internalError(request.uid, `while reviewing: ${String(error)}`), ratcheted };
  }
}

function internalError(uid: string, problem: string): AdmissionResponse {
  return {
    uid,
    allowed: false,
    status: { code: 500, reason: "InternalError", message: `internal error ${problem.slice(0, 220)}` },
  };
}

/** The encoded answer and its report (denials by cause and rule; the review log's fields). */
function answerWith(
  kind: { kind: string; rules?: readonly string[] },
  review: ReviewInProgress,
  response: AdmissionResponse,
  fitted: FittedVerdict | undefined,
): ReviewAnswer {
  const text = encodeReview(response);
  const report: ReviewReport = {
    kind: kind.kind,
    allowed: response.allowed,
    log: { ...review.log, patched: response.patch !== undefined },
  };
  if (!response.allowed) report.denied = denialCauses(response, kind.rules ?? [], fitted);
  return { status: 200, body: text, report };
}

/** A denial's causes by type and rule label, as the verdict showed them (the 422 it was answered with). */
function denialCauses(
  response: AdmissionResponse,
  declared: readonly string[],
  fitted?: FittedVerdict,
): { type: string; rule: string }[] {
  if (fitted && response.status?.code === 422) {
    const { errors, more } = fitted.shown;
    const causes = errors.map((error) => ({ type: causeType(error), rule: ruleLabel(error.rule, declared) }));
    return more > 0
      ? [...causes, { type: "FieldValueTooMany", rule: ruleLabel(undefined, declared) }]
      : causes;
  }
  return [{ type: response.status?.reason ?? "Unknown", rule: ruleLabel(undefined, declared) }];
}

function jsonAnswer(status: number, body: unknown): ReviewAnswer {
  return { status, body: JSON.stringify(body) };
}

const encoder = new TextEncoder();

/**
 * Text as bytes in a buffer of their own, as the main thread hands a review's body to a worker
 * (transferred, not copied), which a Buffer from Node's shared pool could not be.
 */
export function bytesOf(text: string): Uint8Array {
  return encoder.encode(text);
}
