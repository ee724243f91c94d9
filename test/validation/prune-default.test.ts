import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { offlineKinds } from "../../src/offline/kinds.js";
import { pruneAndDefault } from "../../src/validation/prune-default.js";
import { helmModule } from "../support/modules.js";

const schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer", default: 1 },
        nested: { type: "object", properties: { mode: { type: "string", default: "fast" } } },
        labels: { type: "object", additionalProperties: { type: "string" } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
      },
    },
  },
};

describe("pruneAndDefault", () => {
  it("drops unknown fields at any depth, keeping maps, free-form objects and apiVersion/kind/metadata", () => {
    const object = {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "a", anything: 1 },
      extra: true,
      spec: {
        replicas: 2,
        typo: 1,
        labels: { a: "b" },
        free: { any: { thing: 1 } },
        items: [{ name: "n", nam: "m" }],
      },
    };
    const { object: result, pruned } = pruneAndDefault(schema, object);
    assert.deepEqual(pruned.map(String), ["extra", "spec.typo", "spec.items[0].nam"]);
    assert.deepEqual(result, {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "a", anything: 1 },
      spec: { replicas: 2, labels: { a: "b" }, free: { any: { thing: 1 } }, items: [{ name: "n" }] },
    });
    assert.equal((object.spec as Record<string, unknown>).typo, 1, "the input is not changed");
  });

  it("fills defaults in objects that are present, never creating absent parents", () => {
    assert.deepEqual(pruneAndDefault(schema, { spec: { nested: {} } }).object, {
      spec: { replicas: 1, nested: { mode: "fast" } },
    });
    assert.deepEqual(pruneAndDefault(schema, {}).object, {});
  });

  it("applies the Module CRD's own defaults (spec.hibernated, a helm chart's repo defaults)", () => {
    const [module] = offlineKinds();
    assert.ok(module);
    const object = helmModule();
    const { object: result, pruned } = pruneAndDefault(module.crdSchema, object);
    assert.deepEqual(pruned, []);
    assert.equal((result as { spec: { hibernated?: boolean } }).spec.hibernated, false);
  });

  it("shares what it leaves as it was, copies only along a change, and never changes its input", () => {
    const object = {
      spec: {
        replicas: 2,
        nested: { mode: "slow" },
        labels: { a: "b" },
        free: { any: { thing: 1 } },
        items: [{ name: "kept" }, { name: "n", nam: "pruned" }, null],
        absent: null,
      },
    };
    const before = structuredClone(object);
    const { object: result, pruned } = pruneAndDefault(schema, object);
    const spec = (result as { spec: typeof object.spec }).spec;
    assert.deepEqual(pruned.map(String), ["spec.items[1].nam", "spec.absent"]);
    assert.notEqual(spec, object.spec, "spec changed below");
    assert.equal(spec.nested, object.spec.nested, "an unchanged object is shared");
    assert.equal(spec.free, object.spec.free);
    assert.equal(spec.labels, object.spec.labels);
    assert.notEqual(spec.items, object.spec.items);
    assert.equal(spec.items[0], object.spec.items[0], "an unchanged item is shared");
    assert.deepEqual(spec.items, [{ name: "kept" }, { name: "n" }, null]);
    assert.deepEqual(Object.keys(spec), ["replicas", "nested", "labels", "free", "items"]);
    assert.deepEqual(object, before, "the input is not changed");
    const unchanged = { spec: { replicas: 3, nested: { mode: "x" } } };
    assert.equal(pruneAndDefault(schema, unchanged).object, unchanged, "nothing to do: the same object");
  });

  it("drops a null the schema does not allow, then defaults it, keeping the key order of the rest", () => {
    const { object: result } = pruneAndDefault(schema, {
      spec: { nested: null, replicas: null, labels: {} },
    });
    assert.deepEqual(result, { spec: { labels: {}, replicas: 1 } });
  });
});
