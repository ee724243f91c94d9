import { Buffer } from "node:buffer";
import { writeJson } from "../base/exact-json.js";
import { boundWarnings, limits, truncate } from "../base/limits.js";
import {
  boundErrors,
  causeMessage,
  causeType,
  type FieldErrorList,
  formatField,
  formatFieldError,
} from "./field-errors.js";
import { qualifiedKind, type ResourceKind } from "./resource-kind.js";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionStatus,
  reviewResponse,
} from "./review.js";
import type { ReviewVerdict } from "./verdict.js";
import { type Warning, warningText } from "./warning.js";

/** What a verdict shows, within the answer's bounds. */
export interface ShownVerdict {
  /** At most `limits.causes` errors, the last place kept for how many more there are (`more`). */
  errors: FieldErrorList;
  more: number;
  /** The warnings the API server keeps (120 characters each, 4 KiB together). */
  warnings: Warning[];
}

/** A verdict fitted to the answer: what it shows, and what the answer carries or why it cannot. */
export interface FittedVerdict {
  shown: ShownVerdict;
  /** The denial's status: 400 for a request the kind cannot judge, 422 for an invalid object. */
  status?: AdmissionStatus;
  /** An admission's JSON Patch, as JSON text (the answer carries it in base64). */
  patchJson?: string;
  /**
   * Why the answer cannot be sent as built (over `limits.answerBytes`, or not serializable): it is
   * then a denial with code 500 for the same uid, never a bare HTTP 500, which failurePolicy Ignore
   * would turn into an admission.
   */
  unfit?: string;
}

/**
 * The one function of a verdict that gives what is shown and whether the answer fits: the server's
 * AdmissionResponse and `validate`'s findings both come from it, so they show the same errors and
 * warnings and fail the same way on an answer too large to send. Its size is
 * bounded from the lengths of what it shows (no answer is serialized to learn it); only an answer
 * whose bound exceeds the limit, which no ordinary review comes near, is serialized to measure it.
 */
export function fitVerdict(
  kind: ResourceKind,
  request: AdmissionRequest,
  verdict: ReviewVerdict,
): FittedVerdict {
  if (verdict.badRequest !== undefined) {
    const status = { code: 400, reason: "BadRequest", message: verdict.badRequest };
    return withFit(request.uid, { shown: { errors: [], more: 0, warnings: [] }, status });
  }
  const { shown: errors, more } = boundErrors(verdict.errors);
  const shown = { errors, more, warnings: boundWarnings(verdict.warnings) };
  if (verdict.errors.length > 0)
    return withFit(request.uid, { shown, status: invalidStatus(kind, request, shown) });
  if (verdict.patch.length === 0) return withFit(request.uid, { shown });
  let patchJson: string;
  try {
    patchJson = writeJson(verdict.patch);
  } catch (error) {
    return { shown, unfit: notSerializable(error) };
  }
  return withFit(request.uid, { shown, patchJson });
}

/** The AdmissionResponse for a verdict: the one place a verdict becomes the webhook's answer. */
export function admissionResponse(
  kind: ResourceKind,
  request: AdmissionRequest,
  verdict: ReviewVerdict,
): AdmissionResponse {
  return responseOf(request.uid, fitVerdict(kind, request, verdict));
}

/** The AdmissionResponse carrying a fitted verdict. */
export function responseOf(uid: string, fitted: FittedVerdict): AdmissionResponse {
  if (fitted.unfit !== undefined) {
    return {
      uid,
      allowed: false,
      status: { code: 500, reason: "InternalError", message: `internal error: ${fitted.unfit}` },
    };
  }
  const { shown, status, patchJson } = fitted;
  if (status?.code === 400) return { uid, allowed: false, status };
  const warnings = shown.warnings.length > 0 ? { warnings: shown.warnings.map(warningText) } : {};
  if (status) return { uid, allowed: false, status, ...warnings };
  const patch =
    patchJson === undefined
      ? {}
      : { patchType: "JSONPatch" as const, patch: Buffer.from(patchJson).toString("base64") };
  return { uid, allowed: true, ...patch, ...warnings };
}

/** The last cause of a cut list. */
export const moreErrors = (count: number) => `... and ${count} more errors`;

/** The name a denial names: the request's, else the object's name, else its generateName. */
export function objectName(request: AdmissionRequest): string {
  if (typeof request.name === "string" && request.name) return request.name;
  const metadata = (request.object as { metadata?: { name?: unknown; generateName?: unknown } } | undefined)
    ?.metadata;
  if (typeof metadata?.name === "string") return metadata.name;
  return typeof metadata?.generateName === "string" ? metadata.generateName : "";
}

/**
 * No UTF-16 unit takes more than 6 bytes in JSON (`\u001f`; a character outside the BMP is 2 units
 * and 4 bytes), and an AdmissionReview's keys and punctuation around its strings take less than this.
 */
const jsonBytesPerChar = 6;
const envelopeBytes = 256;
const causeBytes = 48;

/** `fitted`, marked unfit when its answer would exceed `limits.answerBytes`. */
function withFit(uid: string, fitted: FittedVerdict): FittedVerdict {
  const { status, shown, patchJson } = fitted;
  // A patch travels in base64: its size is known exactly from its bytes, without encoding it.
  const patchBytes = patchJson === undefined ? 0 : Math.ceil(Buffer.byteLength(patchJson) / 3) * 4;
  if (patchBytes > limits.answerBytes) return { ...fitted, unfit: tooLarge };
  let chars = uid.length;
  for (const warning of shown.warnings) chars += warningText(warning).length + 3;
  if (status) {
    const details = status.details;
    chars += status.message.length + (status.reason?.length ?? 0);
    chars += (details?.name?.length ?? 0) + (details?.group?.length ?? 0) + (details?.kind?.length ?? 0);
    for (const cause of details?.causes ?? []) {
      chars += cause.reason.length + cause.field.length + cause.message.length + causeBytes;
    }
  }
  if (patchBytes + envelopeBytes + chars * jsonBytesPerChar <= limits.answerBytes) return fitted;
  let text: string;
  try {
    text = JSON.stringify(reviewResponse(responseOf(uid, fitted)));
  } catch (error) {
    return { ...fitted, unfit: notSerializable(error) };
  }
  return Buffer.byteLength(text) <= limits.answerBytes ? fitted : { ...fitted, unfit: tooLarge };
}

const tooLarge = `the answer would exceed ${limits.answerBytes} bytes`;

function notSerializable(error: unknown): string {
  return `the answer could not be serialized (${String(error).slice(0, 200)})`;
}

/**
 * The Status the API server itself returns for an invalid object (HTTP 422, reason Invalid), with the
 * shown errors as causes: the last one says how many more were found.
 */
function invalidStatus(
  kind: ResourceKind,
  request: AdmissionRequest,
  { errors, more }: { errors: FieldErrorList; more: number },
): AdmissionStatus {
  const name = truncate(objectName(request), limits.fieldChars);
  const rest = more > 0 ? [{ reason: "FieldValueTooMany", field: "", message: moreErrors(more) }] : [];
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
          reason: causeType(error),
          field: formatField(error),
          message: causeMessage(error),
        })),
        ...rest,
      ],
    },
  };
}
