import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { CustomStateCheck } from "../../generated/moduletemplate.js";

const checksPath = FieldPath.root("spec").child("customStateCheck");

// The lifecycle manager splits jsonPath on "." and walks the module CR's fields (unstructured.NestedString):
// kubectl's JSONPath syntax ({.a}, $, [0], *) and empty segments find nothing.
const dottedPath = /^[^.\s{}[\]$*]+(\.[^.\s{}[\]$*]+)*$/;

/**
 * spec.customStateCheck: each jsonPath a dotted field path, and no two checks on the same jsonPath and
 * value that map to different states (mappedState itself is an enum the schema checks).
 */
export function validateStateChecks(checks: CustomStateCheck[]): FieldErrorList {
  const errors: FieldErrorList = [];
  const firstIndex = new Map<string, number>();
  checks.forEach((check, i) => {
    const path = checksPath.index(i);
    if (check.jsonPath === "") {
      errors.push(fieldError.required(path.child("jsonPath"), "a dotted field path, e.g. status.health"));
    } else if (!dottedPath.test(check.jsonPath)) {
      errors.push(
        fieldError.invalid(
          path.child("jsonPath"),
          check.jsonPath,
          "must be a dotted field path such as status.health (no leading '.', '{}', '$', '[i]' or '*')",
        ),
      );
    }
    const key = JSON.stringify([check.jsonPath, check.value]);
    const earlier = firstIndex.get(key);
    const other = earlier === undefined ? undefined : checks[earlier];
    if (earlier === undefined) firstIndex.set(key, i);
    else if (other && other.mappedState !== check.mappedState) {
      errors.push(
        fieldError.invalid(
          path.child("mappedState"),
          check.mappedState,
          `contradicts ${checksPath.index(earlier)}, which maps the same jsonPath and value to ${JSON.stringify(other.mappedState)}`,
        ),
      );
    }
  });
  return errors;
}
