import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RecentResults } from "../../src/memo/recent-results.js";

describe("RecentResults", () => {
  it("computes a key once while it is used, and keeps at most its limit", () => {
    const results = new RecentResults<number>(4);
    let computed = 0;
    const square = (n: number) =>
      results.get(String(n), () => {
        computed++;
        return n * n;
      });
    assert.equal(square(3), 9);
    assert.equal(square(3), 9);
    assert.equal(computed, 1, "a kept result is not computed again");
    for (let n = 0; n < 100; n++) square(n);
    assert.ok(results.size <= 4, `kept ${results.size}`);
  });

  it("keeps what is used across a generation change and drops what is not", () => {
    const results = new RecentResults<string>(4);
    const calls: string[] = [];
    const get = (key: string) =>
      results.get(key, () => {
        calls.push(key);
        return key.toUpperCase();
      });
    get("a");
    get("b"); // current generation full: a, b
    get("c"); // a, b become the previous generation
    get("a"); // from the previous generation: not computed, moved to the current one
    get("d"); // current full (c, a): it becomes the previous; b is dropped
    get("b");
    assert.deepEqual(calls, ["a", "b", "c", "d", "b"]);
    assert.equal(get("a"), "A");
    assert.deepEqual(calls, ["a", "b", "c", "d", "b"], "a stayed: it was used in the last generation");
  });

  it("keeps a false result as a result", () => {
    const results = new RecentResults<boolean>(8);
    let computed = 0;
    for (let i = 0; i < 3; i++) {
      results.get("k", () => {
        computed++;
        return false;
      });
    }
    assert.equal(computed, 1);
  });
});
