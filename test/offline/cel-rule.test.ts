import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FieldPath } from "../../src/base/field-path.js";
import { withCelRule } from "../../src/offline/cel-rule.js";
import { offlineKinds } from "../../src/offline/kinds.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";

/** Every `x-kubernetes-validations` message of a CRD schema, at any depth. */
function messagesOf(node: unknown): string[] {
  if (node === null || typeof node !== "object") return [];
  if (Array.isArray(node)) return node.flatMap(messagesOf);
  const rules = ((node as JsonSchema)["x-kubernetes-validations"] ?? []) as {
    message?: string;
    rule: string;
  }[];
  return [
    ...rules.map((rule) => rule.message ?? `failed rule: ${rule.rule}`),
    ...Object.entries(node).flatMap(([key, child]) =>
      key === "x-kubernetes-validations" ? [] : messagesOf(child),
    ),
  ];
}

describe("each CRD rule's finding names a declared rule", () => {
  it("the rule its message names, else the kind's schema rule: declared by the kind either way", () => {
    let rules = 0;
    for (const kind of offlineKinds()) {
      const declared = new Set((kind.kind.declarations ?? []).map((rule) => rule.id));
      for (const message of messagesOf(kind.crdSchema)) {
        rules++;
        const found = withCelRule(kind, {
          stage: "cel",
          field: FieldPath.empty,
          type: "FieldValueInvalid",
          message,
        });
        assert.ok(
          found.rule !== undefined && declared.has(found.rule),
          `${kind.kind.kind}: ${message} -> ${found.rule}`,
        );
      }
    }
    assert.ok(rules >= 20, `${rules} CRD rules`);
  });
});
