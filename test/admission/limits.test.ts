import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { admissionResponse, fitVerdict } from "../../src/admission/answer.js";
import { tooDeepAt } from "../../src/admission/depth.js";
import { fieldError } from "../../src/admission/field-errors.js";
import { mutate, validate } from "../../src/admission/handler.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import { type AdmissionRequest, encodeReview } from "../../src/admission/review.js";
import { verdictOf } from "../../src/admission/verdict.js";
import { FieldPath } from "../../src/base/field-path.js";
import { boundedJson, boundWarnings, limits } from "../../src/base/limits.js";

type Bag = { apiVersion: string; kind: string; metadata: { name: string }; items?: unknown[]; warn?: number };

/** A kind whose every item is an error, each echoing a long value: the protocol layer must bound it. */
const bagKind: ResourceKind<Bag> = {
  group: "example.com",
  version: "v1",
  kind: "Bag",
  validator: {
    validate: (bag) => ({
      errors: (bag.items ?? []).map((item, i) =>
        fieldError.invalid(FieldPath.root("items").index(i), item, `must be fine; ${"x".repeat(5000)}`),
      ),
      warnings: Array.from({ length: bag.warn ?? 0 }, (_, i) => `warning ${i}: ${"w".repeat(200)}`),
    }),
  },
  defaulter: { applyDefaults: (bag) => bag },
};

const review = (object: unknown, operation: AdmissionRequest["operation"] = "CREATE", oldObject?: unknown) =>
  ({
    uid: "u-1",
    kind: { group: "example.com", version: "v1", kind: "Bag" },
    operation,
    object,
    oldObject,
  }) satisfies AdmissionRequest;
const bag = (extra: Partial<Bag>): Bag => ({
  apiVersion: "example.com/v1",
  kind: "Bag",
  metadata: { name: "b" },
  ...extra,
});

describe("bounded answers", () => {
  it("shows at most 100 causes, the last saying how many more, each message and value cut", async () => {
    const items = Array.from({ length: 20_000 }, () => "v".repeat(100_000));
    const response = await validate(bagKind, review(bag({ items })));
    const causes = response.status?.details?.causes ?? [];
    assert.equal(causes.length, limits.causes);
    assert.deepEqual(causes.at(-1), {
      reason: "FieldValueTooMany",
      field: "",
      message: "... and 19901 more errors",
    });
    for (const cause of causes) assert.ok(cause.message.length <= limits.messageChars);
    assert.match(causes[0]?.message ?? "", /^Invalid value: "v{199}\.\.\.: must be fine; x+\.\.\.$/);
    assert.ok(encodeReview(response).length < 300 * 1024);
  });

  it("keeps warnings within 4 KiB, saying how many were left out", () => {
    const warnings = boundWarnings(Array.from({ length: 1000 }, (_, i) => `${i} ${"w".repeat(200)}`));
    assert.ok(Buffer.byteLength(warnings.join("")) <= limits.warningBytes);
    assert.ok(warnings.slice(0, -1).every((warning) => warning.length === 120));
    assert.equal(warnings.at(-1), `... and ${1000 - (warnings.length - 1)} more warnings`);
    assert.deepEqual(boundWarnings(["a", "b"]), ["a", "b"]);
  });

  it("answers code 500 for the same uid when the answer is too large or cannot be serialized", () => {
    const verdict = verdictOf;
    const request = { ...review(bag({})), uid: "u-2" };
    // A default of 1 MiB: its patch alone, in base64, is over the limit.
    const huge = verdict({ patch: [{ op: "add", path: "/spec", value: "p".repeat(1024 * 1024) }] });
    const tooLarge = admissionResponse(bagKind, request, huge);
    assert.deepEqual(JSON.parse(encodeReview(tooLarge)).response, {
      uid: "u-2",
      allowed: false,
      status: {
        code: 500,
        reason: "InternalError",
        message: "internal error: the answer would exceed 1048576 bytes",
      },
    });
    // 100 causes of control characters, 6 bytes each in JSON: bounded causes, still over 1 MiB.
    const control = Array.from({ length: 200 }, (_, i) =>
      fieldError.invalid(FieldPath.root("items").index(i), "v", "\u0001".repeat(2000)),
    );
    assert.equal(
      fitVerdict(bagKind, request, verdict({ errors: control })).unfit,
      "the answer would exceed 1048576 bytes",
    );
    // Just under the limit, with a bound over it (warnings counted at 6 bytes a character): measured.
    const near = verdict({
      patch: [{ op: "add", path: "/spec", value: "p".repeat(780_000) }],
      warnings: Array.from({ length: 40 }, (_, i) => `${i} ${"w".repeat(95)}`),
    });
    assert.equal(fitVerdict(bagKind, request, near).unfit, undefined);
    const nearText = encodeReview(admissionResponse(bagKind, request, near));
    assert.ok(Buffer.byteLength(nearText) > limits.answerBytes - 8 * 1024);
    assert.ok(Buffer.byteLength(nearText) <= limits.answerBytes);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const broken = admissionResponse(
      bagKind,
      request,
      verdict({ patch: [{ op: "add", path: "/x", value: cyclic }] }),
    );
    assert.equal(broken.status?.code, 500);
    assert.equal(broken.uid, "u-2");
    assert.match(broken.status?.message ?? "", /^internal error: the answer could not be serialized/);
  });

  it("writes bounded JSON for huge and deep values without serializing them whole", () => {
    assert.equal(boundedJson({ a: [1, "x", null, true] }, 200), '{"a":[1,"x",null,true]}');
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(boundedJson(deep, 10), `${"[".repeat(10)}...`);
    assert.equal(boundedJson("s".repeat(1e6), 5), '"ssss...');
  });

  it("denies an object nested deeper than 1,000 levels with the field, before any rule; spares one stored so", async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    assert.equal(tooDeepAt({ x: [{ y: deep }] })?.toString(), `x[0].y${".a".repeat(limits.depth - 3)}`);
    assert.equal(tooDeepAt({ a: { b: 1 } }), undefined);
    // At the bound, through lists and maps alike: level `max` is too deep, level `max - 1` is not.
    assert.equal(tooDeepAt({ a: [{ b: 1 }] }, 3), undefined);
    assert.equal(tooDeepAt({ a: [{ b: {} }] }, 3)?.toString(), "a[0].b");
    assert.equal(tooDeepAt([[], [[0]], { k: "v" }], 3), undefined);
    assert.equal(tooDeepAt([[], [[[]]], { k: "v" }], 3)?.toString(), "[1][0][0]");
    assert.equal(
      tooDeepAt({ s: "x", n: null, list: [1, "2", null, { deep: [{}] }] }, 3)?.toString(),
      "list[3].deep",
    );
    const denied = await validate(bagKind, review(bag({ items: [deep] })));
    assert.equal(denied.status?.code, 422);
    // The field is cut to 512 characters like any other.
    const field = `items[0]${".a".repeat(limits.depth - 2)}`;
    assert.equal(denied.status?.details?.causes?.[0]?.field, `${field.slice(0, limits.fieldChars - 3)}...`);
    assert.match(denied.status?.details?.causes?.[0]?.message ?? "", /nested more than 1000 levels deep/);
    assert.equal((await mutate(bagKind, review(bag({ items: [deep] })))).allowed, false);
    // Stored that deep already: judged cut at that depth, so the old deep value warns and switches
    // off no rule; a new problem beside it is denied, naming only itself.
    const stored = bag({ items: [deep] });
    const update = await validate(bagKind, review(bag({ items: [deep] }), "UPDATE", stored));
    assert.equal(update.allowed, true);
    assert.match(update.warnings?.[0] ?? "", /nested more than 1000 levels deep, as before$/);
    assert.match(update.warnings?.[1] ?? "", /^already invalid before this update: items\[0\]: /);
    const added = await validate(bagKind, review(bag({ items: [deep, "new"] }), "UPDATE", stored));
    assert.equal(added.allowed, false);
    assert.deepEqual(
      added.status?.details?.causes?.map((cause) => cause.field),
      ["items[1]"],
    );
    // The deep value changed, still too deep: a new problem, as on CREATE.
    const changed = await validate(bagKind, review(bag({ items: [{ b: deep }] }), "UPDATE", stored));
    assert.equal(changed.allowed, false);
    assert.match(changed.status?.details?.causes?.[0]?.message ?? "", /nested more than 1000 levels deep/);
    // Below the cut too: the same path, another leaf 5,000 levels down.
    let other: unknown = "other leaf";
    for (let i = 0; i < 5000; i++) other = { a: other };
    const relaid = await validate(bagKind, review(bag({ items: [other] }), "UPDATE", stored));
    assert.match(relaid.status?.details?.causes?.[0]?.message ?? "", /nested more than 1000 levels deep/);
    const mutated = await mutate(bagKind, review(bag({ items: [deep] }), "UPDATE", stored));
    assert.deepEqual([mutated.allowed, mutated.patch], [true, undefined]);
  });
});
