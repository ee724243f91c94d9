import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { own, setOwn } from "../../src/admission/own-property.js";

describe("own properties whatever the key", () => {
  it("sets __proto__, constructor and prototype as own, enumerable keys, leaving the prototype alone", () => {
    const record: Record<string, unknown> = {};
    for (const key of ["__proto__", "constructor", "prototype", "toString", "name"])
      setOwn(record, key, key.length);
    assert.equal(Object.getPrototypeOf(record), Object.prototype);
    assert.deepEqual(Object.keys(record), ["__proto__", "constructor", "prototype", "toString", "name"]);
    assert.equal(own(record, "__proto__"), 9);
    assert.equal(own(record, "constructor"), 11);
    assert.equal(
      JSON.stringify(record),
      '{"__proto__":9,"constructor":11,"prototype":9,"toString":8,"name":4}',
    );
  });

  it("reads only own keys", () => {
    assert.equal(own({}, "constructor"), undefined);
    assert.equal(own({}, "__proto__"), undefined);
    assert.equal(own(undefined, "a"), undefined);
  });
});
