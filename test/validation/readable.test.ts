import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldError } from "../../src/admission/field-errors.js";
import { judgeValidation } from "../../src/admission/handler.js";
import { FieldPath } from "../../src/base/field-path.js";
import { WorkBudget, WorkBudgetExceeded } from "../../src/budget/work-budget.js";
import { createModuleKind } from "../../src/resources/module/index.js";
import { behindStructureGate, readablePart } from "../../src/validation/readable.js";
import { structureChecker } from "../../src/validation/structure.js";
import { matchErrors } from "../support/match-errors.js";
import { helmModule } from "../support/modules.js";

const check = structureChecker({
  type: "object",
  required: ["spec"],
  properties: {
    spec: {
      type: "object",
      properties: {
        name: { type: "string", maxLength: 5 },
        source: {
          type: "object",
          required: ["url"],
          properties: { url: { type: "string" }, path: { type: "string" } },
        },
        channels: {
          type: "array",
          items: {
            type: "object",
            required: ["channel"],
            properties: { channel: { type: "string", minLength: 3 }, version: { type: "string" } },
          },
        },
      },
    },
  },
});
// The tests change their objects between checks: never remembered, as a copy the gate is still changing.
const shape = (object: unknown) => check(object, new WorkBudget(), true).shape;

describe("readablePart: what the rules may read of an object its schema refuses", () => {
  it("hands over a valid object as it is", () => {
    const object = { spec: { name: "ok" } };
    const part = readablePart(object, shape);
    assert.equal(part.object, object);
  });

  it("removes only the values the schema refuses, and an object left without a required field", () => {
    const object = { spec: { name: "too-long", source: { url: 5, path: "p" }, channels: [] } };
    const part = readablePart(object, shape);
    assert.deepEqual(part.object, { spec: { channels: [] } });
    assert.deepEqual(object.spec.source, { url: 5, path: "p" }, "the object sent is not changed");
  });

  it("copies only the containers it takes values out of: what it leaves is the object's own, unchanged", () => {
    const channels = [{ channel: "regular", version: "1" }];
    const object = { spec: { name: "too-long", source: { url: 5, path: "p" }, channels } };
    const part = readablePart<typeof object>(object, shape);
    assert.equal(part.object?.spec.channels, channels, "left as it is: shared, not cloned");
    assert.notEqual(part.object?.spec, object.spec);
    assert.deepEqual(object, { spec: { name: "too-long", source: { url: 5, path: "p" }, channels } });
  });

  it("takes out a value that holds many refused ones whole, without copying what it holds", () => {
    const many = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`c${i}`, { channel: i }]));
    const object = { spec: { name: "ok", channels: Object.values(many) } };
    const part = readablePart<{ spec: object }>(object, shape);
    // Past 1,000 problems the rest are one problem at the list that holds them: the list goes.
    assert.deepEqual(part.object, { spec: { name: "ok" } });
    assert.equal(object.spec.channels.length, 2_000, "the object sent is not changed");
  });

  it("takes a list item out of its list, and names the others' errors at their indexes in the object", () => {
    const object = {
      spec: {
        channels: [
          { channel: "regular", version: "1" },
          { channel: "be", version: "2" },
          { channel: "fast", version: "3" },
        ],
      },
    };
    const part = readablePart<typeof object>(object, shape);
    assert.deepEqual(
      part.object?.spec.channels.map((c) => c.channel),
      ["regular", "fast"],
    );
    const onPart = fieldError.invalid(
      FieldPath.root("spec").child("channels").index(1).child("version"),
      "3",
    );
    assert.equal(String(part.restore(onPart).field), "spec.channels[2].version");
    const first = fieldError.invalid(FieldPath.root("spec").child("channels").index(0), "x");
    assert.equal(String(part.restore(first).field), "spec.channels[0]");
  });

  it("reads nothing when the object itself is of the wrong shape", () => {
    assert.equal(readablePart("text", shape).object, undefined);
    assert.equal(readablePart({ spec: "text" }, shape).object, undefined);
  });

  it('under "type", keeps values of the right type that break other constraints', () => {
    const object = { spec: { name: "too-long", channels: [{ channel: "be" }, 7, { version: "1" }] } };
    const part = readablePart<{ spec: { name: string; channels: unknown[] } }>(object, shape, "type");
    assert.deepEqual(part.object, {
      spec: { name: "too-long", channels: [{ channel: "be" }, { version: "1" }] },
    });
    const error = fieldError.invalid(FieldPath.root("spec").child("channels").index(1), "x");
    assert.equal(String(part.restore(error).field), "spec.channels[2]");
  });

  it("does not keep a rule's 'required' error where the schema's error already named what was removed", () => {
    const part = readablePart({ spec: { source: { url: 5 } } }, shape);
    const spec = FieldPath.root("spec");
    assert.equal(part.keeps(fieldError.required(spec.child("source"), "exactly one source")), false);
    assert.equal(part.keeps(fieldError.required(spec.child("name"))), true);
    assert.equal(part.keeps(fieldError.invalid(spec.child("source"), 5)), true);
  });
});

describe("the Module behind a field-scoped structure gate", () => {
  const request = { uid: "u", kind: { group: "batch.forkspacer.com", version: "v1", kind: "Module" } };

  it("a chart source of the wrong shape is the schema's error alone, not also 'no chart source'", async () => {
    const module = helmModule() as any;
    module.spec.helm.chart.repo.url = 5;
    const verdict = await judgeValidation(createModuleKind(), {
      ...request,
      operation: "CREATE",
      object: module,
    });
    matchErrors(verdict.errors, [
      {
        type: "typeInvalid",
        field: "spec.helm.chart.repo.url",
        rule: "module.schema",
        detail: /must be of type string/,
      },
    ]);
  });

  it("every other rule still runs beside a schema error", async () => {
    const module = helmModule() as any;
    module.spec.helm.releaseName = `${"n".repeat(48)}-abcdefghijk`;
    module.spec.helm.chart.git = { repo: "https://example.com/charts.git", path: "redis", revision: "main" };
    const verdict = await judgeValidation(createModuleKind(), {
      ...request,
      operation: "CREATE",
      object: module,
    });
    matchErrors(verdict.errors, [
      { type: "tooLong", field: "spec.helm.releaseName", rule: "module.schema" },
      { type: "forbidden", field: "spec.helm.chart.git", rule: "module.chart-source" },
    ]);
  });
});

describe("the field-scoped gate's own checks are paid from the review's budget (issue 21)", () => {
  const check = structureChecker({
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          name: { type: "string" },
          items: { type: "array", minItems: 2, items: { type: "string" } },
        },
      },
    },
  });
  const gate = (object: unknown, budget: WorkBudget) =>
    behindStructureGate<{ spec: { name?: string; items?: string[] } }>(
      check,
      { schema: "module.schema", unknownField: "module.unknown-field" },
      object,
      (readable) => {
        assert.deepEqual(readable.spec, { name: "a" });
        return { errors: [], warnings: [] };
      },
      budget,
    );

  it("charges each copy it checks again", () => {
    // Taking out the wrong item leaves the list too short: the copy's check finds that, and pays.
    const own = new WorkBudget();
    check({ spec: { name: "a", items: ["x", 1] } }, own);
    assert.equal(own.spent, 1);
    const gated = new WorkBudget();
    assert.equal(gate({ spec: { name: "a", items: ["x", 1] } }, gated).errors.length, 1);
    assert.equal(gated.spent, 2);
    assert.throws(
      () => gate({ spec: { name: "a", items: ["x", 1] } }, new WorkBudget(1)),
      WorkBudgetExceeded,
    );
  });

  it("remembers the object's own verdict for the review, never a copy's", () => {
    const object = { spec: { name: "a", items: ["x", 1] } };
    const budget = new WorkBudget();
    check(object, budget);
    check(object, budget);
    assert.equal(budget.spent, 1, "remembered");
    check(object, budget, true);
    check(object, budget, true);
    assert.equal(budget.spent, 3, "a copy still changing: charged each time");
  });
});
