import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonNesting } from "../../src/admission/depth.js";
import { parseCostBytes, sentBytesAtLeast, textShape } from "../../src/admission/parse-cost.js";
import { Random } from "../support/differential/random.js";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe("parseCostBytes: what JSON.parse of a body allocates, estimated from its bytes", () => {
  it("counts objects, lists, members and items outside strings, each as its bytes", () => {
    const text = bytes({ a: [1, {}], b: "x" });
    // {"a":[1,{}],"b":"x"}: two objects, one list, two colons, two commas.
    assert.equal(parseCostBytes(text), text.length + 2 * 56 + 32 + 4 * 16);
  });

  it("counts nothing inside strings, whatever runs of backslashes and quotes they hold", () => {
    const plain = bytes({ k: "", l: [""] });
    for (const inside of ["\\", "\\\\", '"', '\\"', '"{[,:', "{[,:\\", '\\\\\\"]', "ü{\\"]) {
      const text = bytes({ [`k${inside}`]: inside, l: [`${inside}\\`] });
      assert.equal(parseCostBytes(text) - text.length, parseCostBytes(plain) - plain.length, inside);
    }
  });
});

describe("textShape: the parse's cost and the nesting in one pass over the decoded text", () => {
  it("counts as parseCostBytes does on the bytes and jsonNesting on the text, whatever the strings and bytes", () => {
    const texts: Uint8Array[] = [];
    for (const inside of ["", "\\", '"', '\\"', '"{[,:', "{[,:\\", '\\\\\\"]', "ü{\\", "😀[", "\u0000{"])
      texts.push(bytes({ [`k${inside}`]: inside, l: [`${inside}\\`, { m: [[inside], {}] }], n: 1 }));
    // Bytes that are no UTF-8 (decoded to U+FFFD), beside and inside strings: a lead byte before a
    // quote or a bracket, a lone continuation byte, a truncated sequence at the end.
    const raw = (...parts: (string | number[])[]) =>
      Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...Buffer.from(part)] : part)));
    texts.push(
      raw('{"a":"', [0xc3], '","b":[', [0xe2, 0x82], "{}]", [0x80], ',"c":"', [0xf0, 0x9f], '"}'),
      raw('[{"x":"', [0xff, 0x22, 0x5b], '"},', [0xc3], "[[1]]]"),
      raw('{"open":["', [0xe2]),
      raw('{"a":[[{"b":"\\\\"}]],"c":', [0xed, 0xa0, 0x80], "[]}"),
    );
    for (const body of texts) {
      const text = Buffer.from(body).toString("utf8");
      const shape = textShape(text);
      assert.equal(body.length + shape.structureBytes, parseCostBytes(body), text);
      assert.equal(shape.nesting, jsonNesting(text), text);
    }
  });
});

/** A random JSON value: maps and lists of strings that need escaping, numbers, literals, keys like the envelope's. */
function randomValue(random: Random, depth: number): unknown {
  const strings = ["", "object", "request", '"object":{', "\\", '\\"', "<&>", "ü😀", "managedFields", " "];
  const choice = random.int(0, depth > 3 ? 3 : 6);
  if (choice === 0) return random.pick(strings) + random.join(strings, 0, 3);
  if (choice === 1) return random.pick([0, 7, -1.5, 1e20, 123456789, 2.5e-7]);
  if (choice === 2) return random.pick([true, false, null]);
  if (choice === 3) return random.int(0, 9);
  if (choice === 4) return Array.from({ length: random.int(0, 4) }, () => randomValue(random, depth + 1));
  return Object.fromEntries(
    Array.from({ length: random.int(0, 4) }, () => [random.pick(strings), randomValue(random, depth + 1)]),
  );
}

/** Written as Go's encoder writes it: `<`, `>` and `&` escaped. */
const goJson = (value: unknown, indent?: number) =>
  JSON.stringify(value, null, indent).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);

/** The fewest bytes a client could have written `value` in: compact, unescaped, numbers as short as they go. */
function fewestBytes(value: unknown): number {
  if (typeof value === "number")
    return Math.min(JSON.stringify(value).length, `${value}`.replace("e+", "e").length);
  if (Array.isArray(value))
    return 2 + Math.max(0, value.length - 1) + value.reduce((n: number, item) => n + fewestBytes(item), 0);
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value);
    return (
      2 +
      Math.max(0, members.length - 1) +
      members.reduce((n, [k, v]) => n + Buffer.byteLength(JSON.stringify(k)) + 1 + fewestBytes(v), 0)
    );
  }
  return Buffer.byteLength(JSON.stringify(value));
}

describe("textShape's request.object and sentBytesAtLeast: an object's size as a client sent it", () => {
  const review = (object: unknown, extra: Record<string, unknown> = {}) => ({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    object: { decoy: 1 },
    request: { uid: "u", options: { object: { decoy: 2 } }, object, oldObject: { old: true }, ...extra },
  });

  /** Seeded reviews of generated objects, written as Go writes them, compact or indented, with the object's place found. */
  function* generated(seed: number) {
    const random = new Random(seed);
    for (let i = 0; i < 300; i++) {
      const object = { metadata: { name: "n" }, spec: randomValue(random, 0) };
      const text = goJson(review(object), random.pick([undefined, 0, 2]));
      yield { object, text, found: textShape(text).object };
    }
  }

  it("finds request.object's text exactly, whatever the strings, blanks and decoys around it", () => {
    for (const { object, text, found } of generated(41)) {
      assert.ok(found, text);
      assert.deepEqual(JSON.parse(text.slice(found.start, found.end + 1)), object, text);
    }
  });

  it("takes the last of repeated object keys, as JSON.parse does, and none for a null object", () => {
    const text = '{"request":{"object":{"a":1},"uid":"u","object" : {"b":[2]}}}';
    const found = textShape(text).object;
    assert.equal(found && text.slice(found.start, found.end + 1), '{"b":[2]}');
    assert.equal(textShape('{"request":{"uid":"u","object":null,"oldObject":{"a":1}}}').object, undefined);
    assert.equal(textShape('{"response":{"object":{"a":1}}}').object, undefined);
  });

  it("never says more than the fewest bytes a client could have sent, and exactly that for compact plain objects", () => {
    for (const { object, text, found } of generated(7)) {
      assert.ok(found);
      assert.ok(sentBytesAtLeast(text, found.start, found.end) <= fewestBytes(object), text);
    }
    const plain = { metadata: { name: "a-b" }, spec: { list: ["x", "y"], on: true, n: null } };
    const text = JSON.stringify(review(plain), null, 2);
    const found = textShape(text).object;
    assert.ok(found);
    assert.equal(sentBytesAtLeast(text, found.start, found.end), JSON.stringify(plain).length);
  });

  it("leaves out what the API server adds and what its encoder lengthens: managedFields, escapes, long numbers", () => {
    const managed = [{ manager: "kubectl", fieldsV1: { "f:spec": { "f:values": {} } } }];
    const object = { metadata: { name: "n", managedFields: managed }, spec: { managedFields: managed } };
    const without = { metadata: { name: "n" }, spec: { managedFields: managed } };
    const text = JSON.stringify(review(object));
    const found = textShape(text).object;
    assert.ok(found);
    assert.equal(sentBytesAtLeast(text, found.start, found.end), JSON.stringify(without).length);
    const escaped = goJson(review({ s: "<".repeat(1000), n: 1e20 }));
    const place = textShape(escaped).object;
    assert.ok(place);
    // {"s":"<...<","n":1}: the 1,000 escapes as the 1,000 characters they are, 1e20 as one digit.
    assert.equal(sentBytesAtLeast(escaped, place.start, place.end), '{"s":"","n":1}'.length + 1000);
  });
});
