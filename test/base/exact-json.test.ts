import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  asSentByClient,
  bigintsAsNumbers,
  hasLongDigitRun,
  readJson,
  vouchForNumbers,
  writeJson,
} from "../../src/base/exact-json.js";

/** JSON.parse's value with every bigint as the number it rounds to: what the exact reader adds to. */
const rounded = (value: unknown): unknown =>
  JSON.parse(writeJson(value), (_key, v) => (typeof v === "bigint" ? Number(v) : v));

describe("readJson: numbers as apimachinery's JSON decoding reads them", () => {
  it("reads int64 literals exactly and every other number as a float64", () => {
    const cases: [string, unknown][] = [
      ["9223372036854775807", 9223372036854775807n],
      ["-9223372036854775808", -9223372036854775808n],
      ["9223372036854775808", 2 ** 63],
      ["-9223372036854775809", -(2 ** 63)],
      ["18446744073709551616", 2 ** 64],
      ["9007199254740993", 9007199254740993n],
      ["9007199254740992", 9007199254740992n],
      ["-9007199254740993", -9007199254740993n],
      ["9007199254740991", 9007199254740991],
      ["1e3", 1000],
      ["1.0", 1],
      ["9223372036854775807.0", 2 ** 63],
      ["9.2e18", 9.2e18],
    ];
    for (const [text, value] of cases) {
      assert.deepEqual(readJson(`[${text}]`), [value], text);
      assert.deepEqual(readJson(`{"k": ${text}}`), { k: value }, text);
    }
  });

  it("gives JSON.parse's value for any JSON (long integers aside), keys named __proto__ as own properties", () => {
    const long = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => ({ long: n }));
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.array(fc.oneof(fc.jsonValue(), long))), (value) => {
        const text = writeJson(value);
        const exact = readJson(text);
        assert.deepEqual(
          rounded(exact),
          JSON.parse(text, (_k, v) => v),
        );
        assert.equal(writeJson(exact), writeJson(readJson(writeJson(exact))));
      }),
      { numRuns: 500 },
    );
    const text =
      '{"__proto__": {"a": 1}, "k": 1, "k": 2, "s": "\\"\\u0000\\ud83d\\ude00", "n": 12345678901234567890}';
    const value = readJson(text) as Record<string, unknown>;
    assert.ok(Object.hasOwn(value, "__proto__"));
    assert.deepEqual(Object.keys(value), Object.keys(JSON.parse(text)));
    assert.equal(value.k, 2);
    assert.equal(value.s, '"\u0000😀');
    assert.equal(value.n, Number("12345678901234567890"));
  });

  it("refuses what JSON.parse refuses, with its message", () => {
    for (const text of ["[9223372036854775807", "{9223372036854775807: 1}", "[01234567890123456]"])
      assert.throws(
        () => readJson(text),
        (error: Error) => {
          assert.throws(() => JSON.parse(text), { message: error.message });
          return error instanceof SyntaxError;
        },
      );
  });
});

describe("hasLongDigitRun", () => {
  it("finds a run of 16 digits wherever it lies, as /\\d{16}/ does", () => {
    const text = fc.array(fc.oneof(fc.constantFrom("x", ",", '"'), fc.stringMatching(/^[0-9]{1,20}$/)), {
      maxLength: 30,
    });
    fc.assert(
      fc.property(text, (parts) => {
        const joined = parts.join("");
        assert.equal(hasLongDigitRun(joined), /\d{16}/.test(joined), joined);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("vouchForNumbers: what a text without long integers made is not walked for bigints", () => {
  // Keys listed by the walk, counted through a proxy over what the text made.
  const counted = (value: object) => {
    const listed = { keys: 0 };
    const proxy = new Proxy(value, {
      ownKeys: (target) => {
        listed.keys++;
        return Reflect.ownKeys(target);
      },
    });
    return { proxy, listed };
  };

  it("returns a vouched object without listing its keys", () => {
    const text = JSON.stringify({ a: { b: [1, 2] }, c: 12345678901234 });
    const { proxy, listed } = counted(readJson(text) as object);
    vouchForNumbers(text, proxy);
    assert.equal(bigintsAsNumbers(proxy), proxy);
    assert.equal(listed.keys, 0);
  });

  it("still walks what a text with a long integer made, and rounds its bigints", () => {
    const text = '{"a":{"b":9223372036854775807}}';
    const { proxy, listed } = counted(readJson(text) as object);
    vouchForNumbers(text, proxy);
    assert.deepEqual(bigintsAsNumbers(proxy), { a: { b: 2 ** 63 } });
    assert.ok(listed.keys > 0);
  });
});

describe("writeJson", () => {
  it("writes bigints as integers, strings holding anything as strings", () => {
    const value = { a: [9223372036854775807n, -1n], s: "\u0000int64", t: '"int64:x"' };
    assert.equal(writeJson(value), '{"a":[9223372036854775807,-1],"s":"\\u0000int64","t":"\\"int64:x\\""}');
    assert.equal(writeJson({ a: 1 }, 2), JSON.stringify({ a: 1 }, undefined, 2));
  });
});

describe("asSentByClient: a number after a Go client decoded and wrote it again", () => {
  it("makes integral float64s within int64 int64s, with Go's digits", () => {
    assert.equal(asSentByClient(9.2e18), 9200000000000000000n);
    assert.equal(asSentByClient(2 ** 53), 9007199254740992n);
    assert.equal(asSentByClient(-(2 ** 63)), -(2 ** 63));
    assert.equal(asSentByClient(-9.2e18), -9200000000000000000n);
    assert.equal(asSentByClient(2 ** 63), 2 ** 63);
    assert.equal(asSentByClient(1e21), 1e21);
    assert.equal(asSentByClient(1.5), 1.5);
    assert.equal(asSentByClient(1000), 1000);
  });
});
