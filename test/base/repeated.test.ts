import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { repeatedStrings } from "../../src/base/repeated.js";

/** What a Set walked in order finds: each value seen before. */
const bySet = (values: readonly unknown[]) => {
  const seen = new Set<unknown>();
  const repeated = new Set<unknown>();
  for (const value of values) {
    if (seen.has(value)) repeated.add(value);
    seen.add(value);
  }
  return repeated;
};

describe("repeatedStrings: the strings that occur more than once", () => {
  it("finds what a Set in order finds, whatever the order, case, Unicode and runs", () => {
    const lists: string[][] = [
      [],
      ["a"],
      ["a", "b", "a"],
      ["b", "a", "A", "a", "b", "b"],
      ["", "", " "],
      ["é", "é", "e\u0301", "😀", "\ud83d", "😀", "\ud83d"],
      Array.from({ length: 1000 }, (_, i) => `n${i % 997}`),
      Array.from({ length: 1000 }, (_, i) => `n${i}`),
    ];
    for (const list of lists) assert.deepEqual(repeatedStrings(list), bySet(list), JSON.stringify(list));
  });

  it("says undefined when a value is no string, so that the caller tracks every value", () => {
    assert.equal(repeatedStrings(["1", 1, "1"]), undefined);
    assert.equal(repeatedStrings(["a", undefined]), undefined);
  });
});
