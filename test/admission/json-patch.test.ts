import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import jsonpatch from "fast-json-patch";
import { diffToPatch } from "../../src/admission/json-patch.js";
import { applyPatch } from "../../src/offline/apply-patch.js";

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
        // fast-json-patch refuses any path through __proto__ by policy; such keys are checked below.
        fc.pre(!JSON.stringify([before, after]).includes('"__proto__"'));
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

  it("treats a __proto__ key as an own key, like any other, and the offline patcher applies it as one", () => {
    const before = JSON.parse('{"root": {"__proto__": {"a": 1}, "keep": true}}');
    const after = JSON.parse('{"root": {"__proto__": {"a": 2}, "keep": true, "constructor": 0}}');
    const patch = diffToPatch(before, after);
    assert.deepEqual(patch, [
      { op: "replace", path: "/root/__proto__/a", value: 2 },
      { op: "add", path: "/root/constructor", value: 0 },
    ]);
    const applied = applyPatch(before, patch);
    assert.equal(JSON.stringify(applied), JSON.stringify(after));
    assert.equal(Object.getPrototypeOf((applied as { root: object }).root), Object.prototype);
  });
});
