import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { beginReview } from "../../../src/admission/review-context.js";
import { warningText } from "../../../src/admission/warning.js";
import { FieldPath } from "../../../src/base/field-path.js";
import { createModuleReleaseMetaKind } from "../../../src/resources/modulereleasemeta/index.js";
import { kedaReleaseMeta } from "../../support/modulereleasemetas.js";

// Every place a user can put a wrong value, top to bottom.
const paths = [
  ["metadata"],
  ["metadata", "name"],
  ["spec"],
  ["spec", "moduleName"],
  ["spec", "channels"],
  ["spec", "channels", "0"],
  ["spec", "channels", "0", "version"],
  ["spec", "channels", "1", "channel"],
  ["spec", "mandatory"],
  ["spec", "mandatory", "version"],
  ["spec", "kymaSelector"],
];

function setAt(object: Record<string, unknown>, path: string[], value: unknown): void {
  let node = object;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1) ?? ""] = value;
}

const kind = createModuleReleaseMetaKind({ moduleTemplateExists: (_namespace, name) => name.endsWith("0") });
const request = { uid: "u", operation: "UPDATE", namespace: "kcp-system" } as AdmissionRequest;

describe("ModuleReleaseMeta validator on arbitrary input", () => {
  it("answers with field errors, never an exception, whatever value sits anywhere (old or new object)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue(), fc.boolean(), (path, value, inOld) => {
        const broken = kedaReleaseMeta() as unknown as Record<string, unknown>;
        setAt(broken, path, value);
        const valid = kedaReleaseMeta();
        const created = kind.validator?.validate(broken as never, beginReview(request));
        const updated = inOld
          ? kind.validator?.validateTransition?.(broken as never, valid, beginReview(request))
          : kind.validator?.validateTransition?.(valid, broken as never, beginReview(request));
        for (const verdict of [created, updated]) {
          assert.ok(verdict && !(verdict instanceof Promise));
          assert.ok(Array.isArray(verdict.errors) && Array.isArray(verdict.warnings));
          for (const error of verdict.errors) assert.ok(error.field instanceof FieldPath);
          for (const warning of verdict.warnings.map(warningText)) assert.ok(warning.length <= 120, warning);
        }
      }),
      { numRuns: 300 },
    );
  });
});
