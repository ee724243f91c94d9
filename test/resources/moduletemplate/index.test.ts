import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { beginReview } from "../../../src/admission/review-context.js";
import { warningText } from "../../../src/admission/warning.js";
import { FieldPath } from "../../../src/base/field-path.js";
import { moduleTemplateKind } from "../../../src/resources/moduletemplate/index.js";
import { kedaTemplate } from "../../support/moduletemplates.js";

// Every place a user can put a wrong value, top to bottom.
const paths = [
  ["metadata"],
  ["metadata", "labels"],
  ["metadata", "labels", "operator.kyma-project.io/beta"],
  ["metadata", "annotations", "operator.kyma-project.io/is-cluster-scoped"],
  ["metadata", "annotations"],
  ["spec"],
  ["spec", "version"],
  ["spec", "moduleName"],
  ["spec", "channel"],
  ["spec", "data"],
  ["spec", "data", "apiVersion"],
  ["spec", "data", "kind"],
  ["spec", "data", "status"],
  ["spec", "descriptor"],
  ["spec", "customStateCheck"],
  ["spec", "info", "icons", "0"],
  ["spec", "info"],
  ["spec", "info", "icons"],
  ["spec", "resources"],
  ["spec", "manager"],
  ["spec", "manager", "name"],
];

function setAt(object: Record<string, unknown>, path: string[], value: unknown): void {
  let node = object;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1) ?? ""] = value;
}

const requests = [
  { uid: "u", operation: "CREATE" } as AdmissionRequest,
  { uid: "u", operation: "UPDATE" } as AdmissionRequest,
];

describe("ModuleTemplate validator on arbitrary input", () => {
  it("answers with field errors, never an exception, whatever value sits anywhere (old or new object)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.jsonValue(),
        fc.boolean(),
        fc.constantFrom(...requests),
        (path, value, inOld, request) => {
          const broken = kedaTemplate() as unknown as Record<string, unknown>;
          setAt(broken, path, value);
          const valid = kedaTemplate();
          const created = moduleTemplateKind.validator?.validate(broken as never, beginReview(request));
          const updated = inOld
            ? moduleTemplateKind.validator?.validateTransition?.(broken as never, valid, beginReview(request))
            : moduleTemplateKind.validator?.validateTransition?.(
                valid,
                broken as never,
                beginReview(request),
              );
          for (const verdict of [created, updated]) {
            assert.ok(verdict && !(verdict instanceof Promise));
            assert.ok(Array.isArray(verdict.errors) && Array.isArray(verdict.warnings));
            for (const error of verdict.errors) assert.ok(error.field instanceof FieldPath);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a label value no label can hold (an object without a usable toString) warns, never throws", () => {
    const template = kedaTemplate() as unknown as { metadata: { labels: Record<string, unknown> } };
    template.metadata.labels["operator.kyma-project.io/beta"] = { toString: {} };
    const verdict = moduleTemplateKind.validator?.validate(
      template as never,
      beginReview(requests[0] as AdmissionRequest),
    );
    assert.ok(verdict && !(verdict instanceof Promise));
    assert.match(warningText(verdict.warnings[0] ?? ""), /is neither true nor false: read as false$/);
  });
});
