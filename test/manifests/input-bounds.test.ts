import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { limits } from "../../src/base/limits.js";
import { inputBoundProblem } from "../../src/manifests/input-bounds.js";

/** A value nested `depth` levels below the object (`a.a.a…`). */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("validate's input bounds: what the API server would never receive", () => {
  it("lets a manifest through, whatever its shape, below the bounds", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        assert.equal(inputBoundProblem({ spec: value }), undefined);
      }),
      { numRuns: 300 },
    );
  });

  it("stops at the depth bound with the path, for a tree and for a node shared by aliases", () => {
    const deep = inputBoundProblem(nested(limits.depth + 5));
    assert.equal(deep?.field.segments.length, limits.depth);
    assert.match(deep?.message ?? "", /nested more than 1000 levels deep/);
    assert.equal(inputBoundProblem(nested(limits.depth - 1)), undefined);
    // One subtree reached twice (an alias): as deep where it is repeated as where it is first.
    const shared = nested(limits.depth - 2);
    assert.equal(inputBoundProblem({ x: shared, y: shared }), undefined);
    assert.match(inputBoundProblem({ x: { y: shared } })?.message ?? "", /nested more than/);
  });

  it("a cycle (an alias to an ancestor) is as deep as the bound, found at the alias", () => {
    const list: unknown[] = [];
    list.push(list);
    const problem = inputBoundProblem({ spec: list });
    assert.deepEqual(problem?.field.segments, ["spec", "0"]);
  });

  it("counts a node each time an alias repeats it: a billion laughs is too large, not walked a billion times", () => {
    let value: unknown = "lol".repeat(10);
    for (let i = 0; i < 20; i++) value = Array.from({ length: 9 }, () => value);
    const problem = inputBoundProblem({ data: value });
    assert.match(
      problem?.message ?? "",
      /Request entity too large: limit is 3145728 \(.* about \d+ bytes as JSON/,
    );
    assert.match(inputBoundProblem({ data: "x".repeat(limits.objectBytes) })?.message ?? "", /too large/);
  });
});
