import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ModuleSpec } from "../../generated/module.js";

const specPath = FieldPath.root("spec");
const helmPath = specPath.child("helm");

/**
 * What may not change once a Module exists: its source kind and its Helm release. A releaseName may be
 * set on a Module that has none (one created before this webhook), never changed or removed; the
 * adopted existingRelease may not be added, changed or removed: either would switch releases.
 */
export function validateSpecUpdate(oldSpec: ModuleSpec, spec: ModuleSpec): FieldErrorList {
  const errors: FieldErrorList = [];
  if (oldSpec.helm && !spec.helm && spec.custom) {
    const error = fieldError.forbidden(specPath.child("custom"), "may not switch a helm Module to custom");
    errors.push({ ...error, rule: "module.source-switch" });
  }
  if (oldSpec.custom && !spec.custom && spec.helm) {
    errors.push({
      ...fieldError.forbidden(helmPath, "may not switch a custom Module to helm"),
      rule: "module.source-switch",
    });
  }
  if (!oldSpec.helm || !spec.helm) return errors;
  const oldRelease = oldSpec.helm.releaseName;
  if (oldRelease !== undefined && spec.helm.releaseName !== oldRelease) {
    errors.push({
      ...fieldError.invalid(
        helmPath.child("releaseName"),
        spec.helm.releaseName ?? null,
        "field is immutable",
      ),
      rule: "module.release-name-immutable",
    });
  }
  const oldExisting = oldSpec.helm.existingRelease;
  const existing = spec.helm.existingRelease;
  if (!sameRelease(oldExisting, existing)) {
    errors.push({
      ...fieldError.invalid(helmPath.child("existingRelease"), existing ?? null, "field is immutable"),
      rule: "module.existing-release-immutable",
    });
  }
  return errors;
}

/**
 * What the update rules read of an object, as far as it can be read: a stored Module may fail today's
 * schema (a releaseName stored before the 53-character limit, an off-schema status), and its update
 * rules must still hold. Fields of the wrong type read as absent.
 */
export function readableSpec(object: unknown): ModuleSpec {
  const spec = record(record(object)?.spec);
  const helm = record(spec?.helm);
  const existing = record(helm?.existingRelease);
  const readable: Record<string, unknown> = {};
  if (spec?.custom !== undefined && spec.custom !== null) readable.custom = {};
  if (helm) {
    const releaseName = typeof helm.releaseName === "string" ? { releaseName: helm.releaseName } : {};
    const existingRelease =
      typeof existing?.name === "string"
        ? {
            existingRelease: {
              name: existing.name,
              ...(typeof existing.namespace === "string" ? { namespace: existing.namespace } : {}),
            },
          }
        : {};
    readable.helm = { ...releaseName, ...existingRelease };
  }
  return readable as unknown as ModuleSpec;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

type ReleaseRef = { name: string; namespace?: string } | undefined;

// The API server fills namespace with its default; an absent namespace and "default" are one release.
function sameRelease(a: ReleaseRef, b: ReleaseRef): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a?.name === b?.name && (a?.namespace ?? "default") === (b?.namespace ?? "default");
}
