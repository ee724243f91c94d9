import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { compareSemver, parseSemver } from "../../validation/semver.js";

const versionPath = FieldPath.root("spec").child("version");

/**
 * A template's version is never decremented (semver precedence, pre-releases included): Kyma CRs and
 * the lifecycle manager treat a lower version as a downgrade they do not perform. Removing the version
 * is a decrement too. An old version that is not a semantic version (an object from before Kyma's
 * pattern) constrains nothing.
 */
export function validateVersionUpdate(
  oldSpec: ModuleTemplateSpec | undefined,
  spec: ModuleTemplateSpec,
): FieldErrorList {
  const oldVersion = oldSpec?.version;
  if (typeof oldVersion !== "string" || oldVersion === "") return [];
  const previous = parseSemver(oldVersion);
  if (!previous) return [];
  const version = spec.version ?? "";
  if (version === "") {
    return [
      fieldError.invalid(
        versionPath,
        version,
        `may not be removed once set (was ${JSON.stringify(oldVersion)})`,
      ),
    ];
  }
  const next = parseSemver(version);
  if (next && compareSemver(next, previous) < 0) {
    return [
      fieldError.invalid(
        versionPath,
        version,
        `may not decrease (was ${JSON.stringify(oldVersion)}): a template's version is never decremented`,
      ),
    ];
  }
  return [];
}
