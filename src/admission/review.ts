import { boundedJson, limits } from "../base/limits.js";

/** The admission.k8s.io/v1 AdmissionReview wire format, as far as this project reads and writes it. */

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

/** metav1.StatusCause: its type travels as `reason` (a cause with a `type` key loses it at the API server). */
export interface StatusCause {
  reason: string;
  field: string;
  message: string;
}

export interface AdmissionStatus {
  code: number;
  reason?: string;
  message: string;
  details?: { group?: string; kind?: string; name?: string; causes?: StatusCause[] };
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patch?: string;
  patchType?: "JSONPatch";
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

const operations: readonly string[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/**
 * Checks the envelope of a posted AdmissionReview. Returns the request, or the reason it is not one
 * (the server answers that with HTTP 400: there is no uid to answer to).
 */
export function parseAdmissionReview(body: unknown): { request: AdmissionRequest } | { problem: string } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return { problem: "body must be a JSON object (an AdmissionReview)" };
  }
  const review = body as Record<string, unknown>;
  if (review.apiVersion !== "admission.k8s.io/v1" || review.kind !== "AdmissionReview") {
    return {
      problem: `expected apiVersion admission.k8s.io/v1 and kind AdmissionReview, got apiVersion ${boundedJson(review.apiVersion, limits.valueChars)} and kind ${boundedJson(review.kind, limits.valueChars)}`,
    };
  }
  const request = review.request as Record<string, unknown> | undefined;
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return { problem: "AdmissionReview has no request" };
  }
  if (typeof request.uid !== "string" || request.uid === "") {
    return { problem: "request.uid must be a non-empty string" };
  }
  // The answer repeats the uid whole; the API server sends a UUID.
  if (request.uid.length > limits.uidChars) {
    return { problem: `request.uid must be at most ${limits.uidChars} characters` };
  }
  if (typeof request.operation !== "string" || !operations.includes(request.operation)) {
    return { problem: `request.operation must be one of ${operations.join(", ")}` };
  }
  const kind = request.kind as Record<string, unknown> | undefined;
  if (
    !kind ||
    typeof kind !== "object" ||
    ["group", "version", "kind"].some((key) => typeof kind[key] !== "string")
  ) {
    return { problem: "request.kind must be an object with string group, version and kind" };
  }
  return { request: request as unknown as AdmissionRequest };
}

export function reviewResponse(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}

/**
 * The AdmissionReview answering `response`, serialized. Only that: its bounds (warnings kept, 1 MiB)
 * were met when the response was built (`fitVerdict`, answer.ts).
 */
export function encodeReview(response: AdmissionResponse): string {
  return JSON.stringify(reviewResponse(response));
}
