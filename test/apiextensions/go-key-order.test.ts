import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { goKeyOrder } from "../../src/apiextensions/decode.js";

const byCodePoint = (a: string, b: string) => {
  const [x, y] = [[...a].map((c) => c.codePointAt(0) ?? 0), [...b].map((c) => c.codePointAt(0) ?? 0)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
};

/** Every map's keys in byte order (JavaScript lists integer-like keys first, whatever the order made). */
function inGoOrder(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(inGoOrder);
  if (value === null || typeof value !== "object") return true;
  const keys = Object.keys(value).filter((key) => !/^(0|[1-9]\d*)$/.test(key));
  return (
    keys.every((key, i) => i === 0 || byCodePoint(keys[i - 1] as string, key) < 0) &&
    Object.values(value).every(inGoOrder)
  );
}

describe("Go's key order for a decoded object", () => {
  it("orders every map's keys by their bytes, values unchanged, the input untouched", () => {
    const key = fc.oneof(
      fc.constantFrom("a", "B", "é", "\u{1F600}", "\uFFFF", "__proto__", "10"),
      fc.string(),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 0 }), tie("list"), tie("map")),
      list: fc.array(tie("value"), { maxLength: 4 }),
      map: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
    }));
    fc.assert(
      fc.property(value, (input) => {
        const before = JSON.stringify(input);
        const ordered = goKeyOrder(input);
        assert.ok(inGoOrder(ordered));
        // The same values (a map without a prototype becomes a plain one: compared as JSON).
        assert.deepEqual(JSON.parse(JSON.stringify(ordered)), JSON.parse(before));
        assert.equal(JSON.stringify(input), before);
      }),
      { numRuns: 1000 },
    );
  });

  it("shares what is in order already and copies the rest", () => {
    const sorted = { a: 1, b: { c: [1, { d: 2 }] } };
    assert.equal(goKeyOrder(sorted), sorted);
    const input = { spec: sorted, kind: "Module" };
    const ordered = goKeyOrder(input) as Record<string, unknown>;
    assert.notEqual(ordered, input);
    assert.deepEqual(Object.keys(ordered), ["kind", "spec"]);
    assert.equal(ordered.spec, sorted);
    // Anything but a plain object or list becomes a plain object, as Go's JSON sees it.
    assert.deepEqual(goKeyOrder({ at: new Date(0) }), { at: {} });
  });
});
