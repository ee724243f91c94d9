import assert from "node:assert/strict";
import { describe, it } from "node:test";
import jsonpatch from "fast-json-patch";
import { diffToPatch } from "../../src/admission/json-patch.js";
import { applyPatch } from "../../src/offline/apply-patch.js";

describe("applyPatch", () => {
  it("turns before into after for the patches diffToPatch makes, as an independent implementation does", () => {
    const before = { spec: { helm: { chart: { repo: "r" } }, list: [1, 2], "a/b": 1, gone: true } };
    const after = {
      spec: { helm: { chart: { repo: "r" }, releaseName: "n" }, list: [3], "a/b": 2 },
      added: { x: 1 },
    };
    const patch = diffToPatch(before, after);
    assert.deepEqual(applyPatch(before, patch), after);
    assert.deepEqual(
      applyPatch(before, patch),
      jsonpatch.applyPatch(structuredClone(before), patch).newDocument,
    );
    assert.equal(before.spec.gone, true, "the input is not changed");
  });

  it("adds, replaces and removes list items by index", () => {
    const object = { items: ["a", "b"] };
    assert.deepEqual(
      applyPatch(object, [
        { op: "add", path: "/items/-", value: "c" },
        { op: "replace", path: "/items/0", value: "z" },
        { op: "remove", path: "/items/1" },
      ]),
      { items: ["z", "c"] },
    );
  });
});
