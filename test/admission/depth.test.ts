import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonNesting, tooDeepAt, vouchForDepth } from "../../src/admission/depth.js";
import { limits } from "../../src/base/limits.js";

const nested = (levels: number) => `${'{"n":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("the depth check vouched for by the body's text (issue 21: no walk of 100,000 keys)", () => {
  it("counts brackets as JSON nests them, none inside strings (escaped quotes included)", () => {
    assert.equal(jsonNesting("1"), 0);
    assert.equal(jsonNesting('{"a":[1,{"b":[]}]}'), 4);
    assert.equal(jsonNesting('{"a":"[[[{{{","b\\"[[":"\\\\","c":[]}'), 2);
    assert.equal(jsonNesting(nested(1500)), 1500);
  });

  it("counts as deep as the value nests whatever runs of backslashes end its strings", () => {
    // Strings ending in 0 to 5 backslashes, or holding escaped quotes and brackets, around brackets.
    const tricky = ["", "\\", "\\\\", '"', '\\"', '"[', "[{", '\\"]}', "x\\"];
    for (let levels = 1; levels < 6; levels++) {
      for (const text of tricky) {
        let value: unknown = text;
        for (let level = 0; level < levels; level++)
          value = level % 2 === 0 ? [text, value, `${text}\\`] : { [text]: value, [`${text}"`]: text };
        assert.equal(jsonNesting(JSON.stringify(value)), levels, JSON.stringify(value));
      }
    }
  });

  it("skips the walk only for what a shallow text made", () => {
    const text = JSON.stringify({ request: { object: { a: { b: 1 } } } });
    const parsed = JSON.parse(text);
    vouchForDepth(text, parsed.request.object);
    assert.equal(tooDeepAt(parsed.request.object), undefined);
    // Vouched for, then asked with a smaller bound: still walked.
    assert.equal(tooDeepAt(parsed.request.object, 1)?.toString(), "a");
  });

  it("vouches for a shallow text with few brackets (counted natively) or many (scanned)", () => {
    const deep = JSON.parse(nested(limits.depth + 5));
    for (const items of [10, limits.depth * 2]) {
      const text = JSON.stringify({ request: { object: { list: Array.from({ length: items }, () => []) } } });
      const object = JSON.parse(text).request.object;
      vouchForDepth(text, object);
      // Vouched for: trusted as the text made it, so a value made deep afterwards is not walked to.
      object.list[0] = deep;
      assert.equal(tooDeepAt(object), undefined, `${items} brackets`);
      assert.match(tooDeepAt({ ...object })?.toString() ?? "", /^list\[0\](\.n)+$/);
    }
  });

  it("vouches for nothing from a text nesting limits.depth levels or more: the walk finds the field", () => {
    const text = `{"request":{"object":{"spec":${nested(limits.depth)}}}}`;
    const parsed = JSON.parse(text);
    vouchForDepth(text, parsed.request.object);
    assert.match(tooDeepAt(parsed.request.object)?.toString() ?? "", /^spec(\.n)+$/);
  });
});
