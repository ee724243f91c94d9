import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import jsonpatch from "fast-json-patch";
import { diffToPatch } from "../../src/admission/json-patch.js";

describe("diffToPatch", () => {
  it("adds new keys, replaces changed values, removes vanished keys, escaping ~ and /", () => {
    const before = { a: 1, b: { c: [1, 2] }, "x/y": 1, gone: true };
    const after = { a: 2, b: { c: [1, 2], d: "new" }, "x/y": 1, "m~n": 0 };
    assert.deepEqual(diffToPatch(before, after), [
      { op: "remove", path: "/gone" },
      { op: "replace", path: "/a", value: 2 },
      { op: "add", path: "/b/d", value: "new" },
      { op: "add", path: "/m~0n", value: 0 },
    ]);
    assert.deepEqual(diffToPatch(before, structuredClone(before)), []);
  });

  it("produces patches an independent JSON Patch library applies to exactly the target", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (before, after) => {
        const doc = { root: before };
        const patch = diffToPatch(doc, { root: after });
        const applied = jsonpatch.applyPatch(
          structuredClone(doc),
          patch as jsonpatch.Operation[],
          true,
          false,
        );
        assert.deepEqual(
          JSON.parse(JSON.stringify(applied.newDocument)),
          JSON.parse(JSON.stringify({ root: after })),
        );
      }),
      { numRuns: 2000 },
    );
  });
});
