import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldError } from "../../src/admission/field-errors.js";
import { mutate, validate } from "../../src/admission/handler.js";
import { type ResourceKind, webhooksOf } from "../../src/admission/resource-kind.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { FieldPath } from "../../src/base/field-path.js";

type Widget = { apiVersion: string; kind: string; metadata: { name: string }; size?: number };

/** A kind that knows nothing of Modules: the protocol layer must work for any kind. */
const widgetKind: ResourceKind<Widget> = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  validator: {
    validate: (w) => ({
      errors:
        (w.size ?? 0) > 3 ? [fieldError.invalid(FieldPath.root("size"), w.size, "must be at most 3")] : [],
      warnings: w.size === undefined ? ["size is not set"] : [],
    }),
    validateTransition: (old, w) => ({
      errors:
        old.size !== w.size ? [fieldError.invalid(FieldPath.root("size"), w.size, "field is immutable")] : [],
      warnings: [],
    }),
  },
  defaulter: { applyDefaults: (w) => (w.size === undefined ? { ...w, size: 1 } : w) },
};

const widget = (size?: number): Widget => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w" },
  ...(size === undefined ? {} : { size }),
});
const request = (
  operation: AdmissionRequest["operation"],
  object: unknown,
  oldObject?: unknown,
): AdmissionRequest => ({
  uid: "abc",
  kind: { group: "example.com", version: "v1", kind: "Widget" },
  operation,
  object,
  oldObject,
});

describe("admission handler", () => {
  it("allows with warnings, denies with a 422 Invalid status naming the kind, object and causes", async () => {
    assert.deepEqual(await validate(widgetKind, request("CREATE", widget())), {
      uid: "abc",
      allowed: true,
      warnings: ["size is not set"],
    });
    const denied = await validate(widgetKind, request("CREATE", widget(5)));
    assert.deepEqual(denied.status, {
      code: 422,
      reason: "Invalid",
      message: 'Widget.example.com "w" is invalid: size: Invalid value: 5: must be at most 3',
      details: {
        group: "example.com",
        kind: "Widget",
        name: "w",
        causes: [
          { reason: "FieldValueInvalid", field: "size", message: "Invalid value: 5: must be at most 3" },
        ],
      },
    });
  });

  it("runs the update rules on UPDATE with the old object", async () => {
    const denied = await validate(widgetKind, request("UPDATE", widget(2), widget(1)));
    assert.equal(denied.allowed, false);
    assert.equal(denied.status?.details?.causes?.[0]?.message, "Invalid value: 2: field is immutable");
  });

  it("answers a JSON Patch only when the defaulter changed something", () => {
    const patched = mutate(widgetKind, request("CREATE", widget()));
    assert.equal(patched.patchType, "JSONPatch");
    assert.deepEqual(JSON.parse(Buffer.from(patched.patch ?? "", "base64").toString()), [
      { op: "add", path: "/size", value: 1 },
    ]);
    assert.deepEqual(mutate(widgetKind, request("CREATE", widget(2))), { uid: "abc", allowed: true });
  });

  it("allows DELETE and CONNECT without running rules", async () => {
    for (const operation of ["DELETE", "CONNECT"] as const) {
      assert.deepEqual(await validate(widgetKind, request(operation, null, widget(9))), {
        uid: "abc",
        allowed: true,
      });
      assert.deepEqual(mutate(widgetKind, request(operation, null, widget(9))), {
        uid: "abc",
        allowed: true,
      });
    }
  });

  it("refuses, with a clear message, an object of another kind", async () => {
    const other = {
      ...request("CREATE", widget()),
      kind: { group: "apps", version: "v1", kind: "Deployment" },
    };
    const reply = await validate(widgetKind, other);
    assert.equal(reply.allowed, false);
    assert.equal(reply.status?.code, 400);
    assert.equal(
      reply.status?.message,
      "this webhook admits example.com/v1, Kind=Widget only, but the request is for apps/v1, Kind=Deployment",
    );
    const wrongObject = await validate(widgetKind, request("CREATE", { ...widget(), kind: "Gadget" }));
    assert.match(wrongObject.status?.message ?? "", /request\.object is a "Gadget"/);
    const notObject = mutate(widgetKind, request("CREATE", "text"));
    assert.match(notObject.status?.message ?? "", /request\.object must be a Widget object/);
  });
});

describe("webhooksOf", () => {
  it("serves mutate only for kinds with a defaulter, validate only for kinds with a validator", () => {
    assert.deepEqual(webhooksOf(widgetKind), [
      { verb: "mutate", path: "/mutate-example-com-v1-widget" },
      { verb: "validate", path: "/validate-example-com-v1-widget" },
    ]);
    const { defaulter: _, ...validateOnly } = widgetKind;
    assert.deepEqual(webhooksOf(validateOnly), [
      { verb: "validate", path: "/validate-example-com-v1-widget" },
    ]);
  });
});
