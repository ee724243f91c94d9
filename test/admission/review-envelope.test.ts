import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { scanEnvelope } from "../../src/admission/review-envelope.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

/** What JSON.parse says of the same text: the envelope's fields, when it is an AdmissionReview with a uid. */
function parsedEnvelope(text: string) {
  let review: any;
  try {
    review = JSON.parse(text);
  } catch {
    return undefined;
  }
  const request = review?.request;
  if (typeof request?.uid !== "string" || request.uid === "" || request.uid.length > 1024) return undefined;
  const short = (value: unknown) => (typeof value === "string" && value.length <= 1024 ? value : undefined);
  const found: Record<string, unknown> = { uid: request.uid };
  for (const field of ["name", "namespace", "operation"]) {
    const value = short(request[field]);
    if (value !== undefined) found[field] = value;
  }
  if (typeof request.kind?.kind === "string") found.kind = short(request.kind.kind);
  if (typeof request.dryRun === "boolean") found.dryRun = request.dryRun;
  return Object.fromEntries(Object.entries(found).filter(([, value]) => value !== undefined));
}

/** Text that is hard to skip: quotes, backslashes and brackets inside strings, keys like the envelope's. */
const awkwardString = fc.oneof(
  fc.string(),
  fc.constantFrom('"', "\\", '\\"', "{", "}", "[", "]", '"uid"', "uid", "request", '\\\\"', "é", "\u2028"),
  fc.string({ unit: fc.constantFrom('"', "\\", "{", "[", "}", "]", ":", ",", "a") }),
);
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    awkwardString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(awkwardString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("scanEnvelope: a review's uid, kind and name without building its objects", () => {
  it("reads what JSON.parse reads of the envelope, whatever the objects hold", () => {
    fc.assert(
      fc.property(
        value,
        value,
        fc.string({ minLength: 1 }),
        fc.boolean(),
        fc.boolean(),
        fc.dictionary(fc.constantFrom("uid", "kind", "name", "dryRun", "object"), value, { maxKeys: 3 }),
        (object, oldObject, uid, dryRun, spaced, repeated) => {
          const review = admissionReview({
            operation: "UPDATE",
            object: { spec: object },
            oldObject: { spec: oldObject },
            dryRun,
          });
          (review.request as { uid: string }).uid = uid;
          const whole = JSON.stringify(review, null, spaced ? 2 : undefined);
          // Keys of the envelope repeated at the request's end, with values of any type: the last counts.
          const requestEnd = whole.lastIndexOf("}", whole.lastIndexOf("}") - 1);
          const text =
            Object.keys(repeated).length === 0
              ? whole
              : `${whole.slice(0, requestEnd)},${JSON.stringify(repeated).slice(1, -1)}${whole.slice(requestEnd)}`;
          const expected = parsedEnvelope(text);
          assert.deepEqual(scanEnvelope(text, { whole: true }), expected);
          // Stopped at the objects (in the API server's order, after the envelope's fields): the same
          // fields, but dryRun, which comes after them.
          const { dryRun: _, ...beforeObjects } = expected ?? {};
          if (Object.keys(repeated).length === 0) {
            assert.deepEqual(scanEnvelope(text), expected && beforeObjects);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("reads the uid of a review whose objects come first, and of the API server's own order", () => {
    const review = admissionReview({ operation: "CREATE", object: helmModule() });
    const request = review.request as unknown as Record<string, unknown>;
    const { uid, ...rest } = request;
    const reordered = JSON.stringify({
      request: { ...rest, uid },
      kind: "AdmissionReview",
      apiVersion: "admission.k8s.io/v1",
    });
    assert.equal(scanEnvelope(reordered)?.uid, uid);
    assert.deepEqual(scanEnvelope(JSON.stringify(review), { whole: true }), {
      uid,
      kind: "Module",
      name: "redis",
      namespace: "default",
      operation: "CREATE",
      dryRun: false,
    });
  });

  it("gives nothing for text that is no AdmissionReview with a uid", () => {
    for (const text of [
      "",
      "[]",
      "{",
      '{"request":{}}',
      '{"request":{"uid":""}}',
      '{"request":{"uid":1}}',
      '{"request":{"uid":"x"',
      "nul",
    ]) {
      assert.equal(scanEnvelope(text), undefined, text);
    }
  });

  it("passes over 2.4 million empty objects, which JSON.parse builds into 131 MB", () => {
    const body = `{"apiVersion":"admission.k8s.io/v1","request":{"object":[${"{},".repeat(2_400_000)}{}],"uid":"u-1","operation":"CREATE","kind":{"group":"g","version":"v1","kind":"Module"}}}`;
    assert.deepEqual(scanEnvelope(body), { uid: "u-1", operation: "CREATE", kind: "Module" });
    const envelopeFirst = `{"request":{"uid":"u-2","object":[${"{},".repeat(2_400_000)}{}]}}`;
    assert.deepEqual(scanEnvelope(envelopeFirst), { uid: "u-2" });
  });
});
