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

type ReleaseRef = { name: string; namespace?: string } | undefined;

// The API server fills namespace with its default; an absent namespace and "default" are one release.
function sameRelease(a: ReleaseRef, b: ReleaseRef): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a?.name === b?.name && (a?.namespace ?? "default") === (b?.namespace ?? "default");
}
