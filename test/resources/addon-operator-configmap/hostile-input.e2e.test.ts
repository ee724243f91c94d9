import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { maxAliasCount, maxDepth } from "../../../src/go/yaml/dialects.js";
import { addonOperatorConfigMapKind } from "../../../src/resources/addon-operator-configmap/index.js";
import { reviewConfigMap, writeTree } from "../../support/addon-modules.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";

/** The classic billion laughs: nine levels, each a list of nine aliases to the level below (9^9 leaves). */
function billionLaughs(): string {
  const lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let level = 1; level < 9; level++) {
    const name = String.fromCharCode(97 + level);
    const below = String.fromCharCode(96 + level);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${below}`).join(", ")}]`);
  }
  return `${lines.join("\n")}\n`;
}

/** How a cause message ends: the id of the rule that found it. */
const rule = " (rule addon-operator-configmap.module-values)";

const nested = (depth: number) => `${"a: {".repeat(depth)}b: 1${"}".repeat(depth)}\n`;

describe("ConfigMap/addon-operator under hostile input (live webhook): bounded, and judged like any other input", () => {
  let server: LiveServer;
  before(async () => {
    const modulesDir = writeTree({
      "001-guarded/openapi/config-values.yaml": {
        type: "object",
        "x-deckhouse-validations": [{ expression: "size(self) < 100", message: "too many keys" }],
        properties: Object.fromEntries(
          "abcdefghi".split("").map((key) => [key, { type: "array", items: { type: "string" } }]),
        ),
      },
      "002-proto/openapi/config-values.yaml": {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" } },
      },
      // Raw text: in a JavaScript object literal, __proto__ would set the prototype instead of a key.
      "003-named/openapi/config-values.yaml":
        "type: object\nrequired: [__proto__]\nproperties:\n  constructor: {type: integer}\n  __proto__: {type: string}\n",
      "004-deep/Chart.yaml": "name: deep\n",
      "005-listed/openapi/config-values.yaml": {
        type: "object",
        properties: { tags: { type: "array", uniqueItems: true, items: { type: "string" } } },
      },
      // Enabled by the static values: addon-operator validates only an enabled module's section.
      "values.yaml":
        "guardedEnabled: true\nprotoEnabled: true\nnamedEnabled: true\ndeepEnabled: true\nlistedEnabled: true\n",
    });
    const kind = addonOperatorConfigMapKind({
      modulesDir,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    });
    server = await startLiveServer([kind]);
  });
  after(() => server.close());

  it(`refuses a billion-laughs section under x-deckhouse-validations unexpanded (aliases over ${maxAliasCount} nodes)`, async () => {
    const reply = await reviewConfigMap(server, { guarded: billionLaughs() });
    assert.equal(reply.allowed, false);
    assert.equal(reply.code, 422);
    assert.deepEqual(
      reply.causes.map((cause) => cause.field),
      ["data.guarded"],
    );
    assert.match(
      reply.causes[0]?.message ?? "",
      /aliases expand to more than 100 nodes \(refused unexpanded\)/,
    );
    // A few aliases are ordinary YAML, and are admitted.
    const small = await reviewConfigMap(server, { guarded: "a: &x [lol]\nb: *x\n" });
    assert.equal(small.allowed, true, small.message);
  });

  it("judges __proto__, constructor and prototype keys like any other: forbidden, and they hide nothing", async () => {
    const reply = await reviewConfigMap(server, {
      proto: "__proto__: {name: 1}\nconstructor: 2\nprototype: 3\n",
    });
    assert.equal(reply.code, 422);
    assert.deepEqual(reply.causes.map((cause) => [cause.field, cause.message]).sort(), [
      ["data.proto.__proto__", `Forbidden: proto.__proto__ in body is a forbidden property${rule}`],
      ["data.proto.constructor", `Forbidden: proto.constructor in body is a forbidden property${rule}`],
      ["data.proto.name", `Required value: proto.name in body is required${rule}`],
      ["data.proto.prototype", `Forbidden: proto.prototype in body is a forbidden property${rule}`],
    ]);
  });

  it("checks properties named __proto__ and constructor: types and required", async () => {
    const wrong = await reviewConfigMap(server, { named: "__proto__: 1\nconstructor: x\n" });
    assert.deepEqual(wrong.causes.map((cause) => [cause.field, cause.message]).sort(), [
      [
        "data.named.__proto__",
        `Invalid value: 1: named.__proto__ in body must be of type string: "number"${rule}`,
      ],
      [
        "data.named.constructor",
        `Invalid value: "x": named.constructor in body must be of type integer: "string"${rule}`,
      ],
    ]);
    const missing = await reviewConfigMap(server, { named: "constructor: 1\n" });
    assert.deepEqual(
      missing.causes.map((cause) => cause.field),
      ["data.named.__proto__"],
    );
    const right = await reviewConfigMap(server, { named: "__proto__: x\nconstructor: 1\n" });
    assert.equal(right.allowed, true, right.message);
  });

  it(`refuses nesting deeper than ${maxDepth} levels with a 422 naming the field, at any depth`, async () => {
    const deep = await reviewConfigMap(server, { deep: nested(maxDepth + 5) });
    assert.equal(deep.code, 422);
    assert.equal(deep.causes[0]?.field, "data.deep");
    assert.match(
      deep.causes[0]?.message ?? "",
      new RegExp(`nesting deeper than ${maxDepth} levels at a\\.a\\.a`),
    );
    // Flow collections and compact sequences a million levels deep (the parser alone would take seconds).
    for (const abyss of [
      `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`,
      `${"- ".repeat(1_000_000)}x\n`,
    ]) {
      const reply = await reviewConfigMap(server, { deep: abyss });
      assert.equal(reply.code, 422);
      assert.equal(reply.causes[0]?.field, "data.deep");
      assert.match(reply.causes[0]?.message ?? "", /nesting deeper than 100 levels/);
    }
    const fine = await reviewConfigMap(server, { deep: nested(maxDepth - 5) });
    assert.equal(fine.allowed, true, fine.message);
  });

  // Issue 21, scaled to run fast: each was quadratic or unbounded (20,000 keys 6 s, 30,000 items 3.1 s,
  // 50,000 tiny sections 6.3 s); now linear, and every section parsed is paid from the review's budget.
  it("finds a repeated key among thousands in one pass, with its line", async () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}: ${i}`);
    const reply = await reviewConfigMap(server, { named: `${keys.join("\n")}\nk7: again\n` });
    assert.equal(reply.code, 422);
    assert.match(reply.causes[0]?.message ?? "", /Map keys must be unique at line 5001, column 1/);
  });

  it("finds a repeated item among thousands (uniqueItems) with a set", async () => {
    const tags = Array.from({ length: 5000 }, (_, i) => `t${i}`);
    const unique = await reviewConfigMap(server, { listed: `tags: [${tags.join(", ")}]\n` });
    assert.equal(unique.allowed, true, unique.message);
    const repeated = await reviewConfigMap(server, { listed: `tags: [${tags.join(", ")}, t4999]\n` });
    assert.equal(repeated.code, 422);
    assert.match(repeated.causes[0]?.message ?? "", /shouldn't contain duplicates/);
  });

  it("denies 50,000 tiny sections once the review's work budget is spent, and still answers", async () => {
    const data = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`mod${i}`, "a: 1\n"]));
    const reply = await reviewConfigMap(server, data);
    assert.equal(reply.code, 422);
    assert.equal(reply.causes.length, 1);
    assert.equal(reply.causes[0]?.reason, "FieldValueForbidden");
    assert.match(
      reply.causes[0]?.message ?? "",
      /^Forbidden: parsing and checking data\.mod\d+ exceeds the webhook's work budget/,
    );
    const fine = await reviewConfigMap(server, { listed: "tags: [a, b]\n" });
    assert.equal(fine.allowed, true, fine.message);
  });
});
