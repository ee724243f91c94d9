import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { LruCache } from "../../src/memo/lru-cache.js";

describe("LruCache: least recently used, counted in bytes", () => {
  it("evicts the least recently used entry beyond its entries; get refreshes an entry", () => {
    const cache = new LruCache<number>({ bytes: 1_000_000, entries: 2 });
    cache.set("a", 1, 0);
    cache.set("b", 2, 0);
    assert.equal(cache.get("a"), 1);
    cache.set("c", 3, 0);
    assert.equal(cache.get("b"), undefined, "b was the least recently used");
    assert.equal(cache.get("a"), 1);
    assert.equal(cache.get("c"), 3);
    assert.equal(cache.size, 2);
  });

  it("charges each entry its bytes and its key's, evicts to stay within bytes, keeps no oversized entry", () => {
    const cache = new LruCache<string>({ bytes: 1000 });
    cache.set("k1", "x", 196);
    assert.equal(cache.bytes, 200);
    cache.set("k2", "y", 196);
    cache.set("k3", "z", 196);
    cache.set("k4", "w", 196);
    assert.equal(cache.bytes, 800);
    assert.equal(cache.set("k5", "v", 246), true);
    assert.equal(cache.get("k1"), undefined, "the oldest went to make room");
    assert.equal(cache.bytes, 850);
    assert.equal(cache.set("big", "too big", 300), false, "more than a quarter of the bytes is not kept");
    assert.equal(cache.get("big"), undefined);
    assert.equal(cache.bytes, 850);
    const wide = new LruCache<string>({ bytes: 1000, entryBytes: 900 });
    assert.equal(wide.set("big", "kept", 300), true, "entryBytes sets the largest entry");
  });

  it("replacing a key recharges it; delete and clear give the bytes back", () => {
    const cache = new LruCache<string>({ bytes: 1000, entries: 10 });
    cache.set("k", "a", 100);
    cache.set("k", "b", 10);
    assert.equal(cache.get("k"), "b");
    assert.equal(cache.bytes, 12);
    assert.equal(cache.size, 1);
    cache.delete("k");
    assert.equal(cache.bytes, 0);
    cache.set("j", "c", 10);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
  });

  it("computes a key once while it is kept, and keeps a false result as a result", () => {
    const cache = new LruCache<boolean>({ bytes: 1000 });
    let computed = 0;
    const compute = () => {
      computed++;
      return false;
    };
    for (let i = 0; i < 3; i++)
      assert.equal(
        cache.getOrSet("k", compute, () => 1),
        false,
      );
    assert.equal(computed, 1);
  });

  it("agrees with a model LRU on any sequence of gets and sets, and stays within its bounds", () => {
    const op = fc.oneof(
      fc.record({ get: fc.constantFrom("a", "b", "c", "d", "e", "f") }),
      fc.record({ set: fc.constantFrom("a", "b", "c", "d", "e", "f"), bytes: fc.nat({ max: 120 }) }),
      fc.record({ del: fc.constantFrom("a", "b", "c") }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const cache = new LruCache<number>({ bytes: 300, entries: 4 });
        // The model: keys oldest first, with their charge.
        let model: { key: string; bytes: number; value: number }[] = [];
        for (const [i, step] of ops.entries()) {
          if ("get" in step) {
            const found = model.find((entry) => entry.key === step.get);
            assert.equal(cache.get(step.get), found?.value);
            if (found) model = [...model.filter((entry) => entry !== found), found];
          } else if ("del" in step) {
            cache.delete(step.del);
            model = model.filter((entry) => entry.key !== step.del);
          } else {
            model = model.filter((entry) => entry.key !== step.set);
            const charged = step.bytes + 2;
            if (charged <= 75) {
              model.push({ key: step.set, bytes: charged, value: i });
              while (model.length > 4 || model.reduce((sum, entry) => sum + entry.bytes, 0) > 300)
                model.shift();
            }
            cache.set(step.set, i, step.bytes);
          }
          assert.equal(cache.size, model.length);
          assert.equal(
            cache.bytes,
            model.reduce((sum, entry) => sum + entry.bytes, 0),
          );
          assert.ok(cache.bytes <= 300 && cache.size <= 4);
        }
      }),
      { numRuns: 500 },
    );
  });
});
