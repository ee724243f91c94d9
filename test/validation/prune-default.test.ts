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
    assert.deepEqual(pruned, ["extra", "spec.typo", "spec.items[0].nam"]);
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
});
