import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import { checkValues } from "../../src/addon-operator/check-values.js";
import { extendSchema, helmSchema } from "../../src/addon-operator/extend.js";
import { applyDefaults, mergeValues } from "../../src/addon-operator/values.js";

/** What a plain JSON Schema validator says: each case below must disagree with it. */
const plainJsonSchemaAccepts = (schema: object, value: unknown) =>
  new Ajv({ strict: false, validateFormats: false }).validate(schema, value);

/** Values built from input have no prototype: compared as plain JSON. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

const messages = (values: unknown, schema: object) =>
  checkValues(values, schema as Record<string, unknown>, "mod").map((violation) => violation.message);

describe("addon-operator values semantics, where they differ from plain JSON Schema", () => {
  it("closes objects without additionalProperties", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "object", properties: { b: { type: "string" } } } },
    };
    const value = { a: { c: 1 } };
    assert.equal(plainJsonSchemaAccepts(schema, value), true);
    assert.deepEqual(messages(value, schema), ["mod.a.c in body is a forbidden property"]);
  });

  it("checks defaults merged under the user's values: maps merge, lists and null replace", () => {
    const schema = {
      type: "object",
      properties: {
        limits: {
          type: "object",
          default: { cpu: "1" },
          properties: { cpu: { type: "string" }, mem: { type: "string" } },
          required: ["cpu", "mem"],
        },
      },
    };
    const value = { limits: { mem: "1Gi" } };
    // Plain JSON Schema sees limits without cpu; addon-operator sees cpu from the default.
    assert.equal(plainJsonSchemaAccepts(schema, value), false);
    assert.deepEqual(messages(value, schema), []);
    assert.deepEqual(plain(mergeValues({ a: { b: 1, c: [1] }, d: 1 }, { a: { c: [2] }, d: null })), {
      a: { b: 1, c: [2] },
      d: null,
    });
  });

  it("fills defaults through just-filled properties and single items schemas, but not the root's, over an explicit null, or a null default", () => {
    const schema = {
      default: { ignored: true },
      properties: {
        outer: { default: {}, properties: { inner: { default: 5 } } },
        list: { items: { properties: { x: { default: "d" } } } },
        kept: { default: 1 },
        allOfOnly: { allOf: [{ default: "never" }] },
        // defaulting.go skips `default: null` (Go cannot tell it from no default).
        storageClass: { type: "string", default: null },
      },
    };
    assert.deepEqual(plain(applyDefaults({ list: [{}, { x: "y" }], kept: null }, schema)), {
      outer: { inner: 5 },
      list: [{ x: "d" }, { x: "y" }],
      kept: null,
    });
  });

  it("never reports a required property that has a default missing, and allows $schema and id", () => {
    const schema = {
      type: "array",
      items: { type: "object", required: ["host"], properties: { host: { type: "string", default: "h" } } },
    };
    assert.equal(plainJsonSchemaAccepts(schema, [{}]), false);
    assert.deepEqual(messages([{}], schema), []);
    const closed = { type: "object", additionalProperties: false, properties: {} };
    assert.equal(plainJsonSchemaAccepts(closed, { $schema: "x", id: "y" }), false);
    assert.deepEqual(messages({ $schema: "x", id: "y" }, closed), []);
  });

  it("reads OpenAPI v2 keywords: boolean exclusiveMaximum, nullable; ignores const", () => {
    const schema = {
      type: "object",
      properties: {
        r: { type: "number", maximum: 1, exclusiveMaximum: true },
        n: { type: "string", nullable: true },
        c: { const: "x" },
      },
    };
    // Plain JSON Schema refuses null for a string and "y" for const "x".
    assert.equal(
      plainJsonSchemaAccepts(
        { ...schema, properties: { n: schema.properties.n, c: schema.properties.c } },
        { n: null, c: "y" },
      ),
      false,
    );
    assert.deepEqual(messages({ r: 1, n: null, c: "y" }, schema), ["mod.r in body should be less than 1"]);
  });

  it("matches patterns with RE2, unanchored", () => {
    const schema = { type: "object", properties: { p: { type: "string", pattern: "(?i)ab" } } };
    assert.deepEqual(messages({ p: "xxABxx" }, schema), []);
    assert.deepEqual(messages({ p: "b" }, schema), ["mod.p in body should match '(?i)ab'"]);
  });

  it("runs x-deckhouse-validations before the schema and reports only them when one fails", () => {
    const schema = {
      type: "object",
      "x-deckhouse-validations": [{ expression: "self.a != 'bad'", message: "a must not be bad" }],
      properties: { a: { type: "string" }, b: { type: "integer" } },
    };
    assert.deepEqual(messages({ a: "bad", b: "x" }, schema), ["a must not be bad"]);
    assert.deepEqual(messages({ a: "ok", b: "x" }, schema), [
      'mod.b in body must be of type integer: "string"',
    ]);
    assert.match(
      messages({ a: "ok" }, { "x-deckhouse-validations": [{ expression: "self.(", message: "m" }] })[0] ?? "",
      /addon-operator refuses the values: mod: compile the 'self\.\(' rule/,
    );
  });

  it("x-extend: properties merged (child wins), required parent-first without duplicates, title child-first, x-* copied", () => {
    const parent = {
      title: "parent",
      description: "parent description",
      "x-doc": "p",
      required: ["a", "b"],
      properties: { a: { type: "string" }, b: { type: "string" } },
      definitions: { d: { type: "string" } },
    };
    const child = {
      "x-extend": { schema: "config-values.yaml" },
      title: "child",
      required: ["c", "a"],
      properties: { b: { type: "integer" }, c: {} },
    };
    assert.deepEqual(extendSchema(child, parent), {
      title: "child",
      description: "parent description",
      "x-doc": "p",
      required: ["a", "b", "c"],
      properties: { a: { type: "string" }, b: { type: "integer" }, c: {} },
      definitions: { d: { type: "string" } },
    });
  });

  it("x-required-for-helm joins required only for the Helm check", () => {
    const schema = { type: "object", "x-required-for-helm": ["p1"], properties: { p1: { type: "string" } } };
    assert.equal(plainJsonSchemaAccepts(schema, {}), true);
    assert.deepEqual(messages({}, schema), []);
    assert.deepEqual(messages({}, helmSchema(schema)), ["mod.p1 in body is required"]);
  });

  it("x-required-for-helm may be a string, and applies through properties but not items", () => {
    const schema = {
      type: "object",
      properties: {
        one: { type: "object", "x-required-for-helm": "a", properties: { a: { type: "string" } } },
        list: {
          type: "array",
          items: { type: "object", "x-required-for-helm": ["b"], properties: { b: { type: "string" } } },
        },
      },
    };
    assert.deepEqual(messages({ one: {}, list: [{}] }, helmSchema(schema)), [
      "mod.one.a in body is required",
    ]);
  });
});
