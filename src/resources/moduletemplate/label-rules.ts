import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";

/**
 * The operator.kyma-project.io labels and annotation that Kyma documents as booleans. The lifecycle
 * manager compares them with "true" or "false", so "True", "yes" or "1" silently mean the default.
 */
export const booleanLabels = [
  "operator.kyma-project.io/sync",
  "operator.kyma-project.io/internal",
  "operator.kyma-project.io/beta",
  "operator.kyma-project.io/mandatory-module",
] as const;
export const booleanAnnotations = ["operator.kyma-project.io/is-cluster-scoped"] as const;

const metadataPath = FieldPath.root("metadata");
const booleans = ["true", "false"];

export function validateBooleanLabels(metadata: Record<string, unknown> | undefined): FieldErrorList {
  return [
    ...booleanEntries(metadata?.labels, booleanLabels, metadataPath.child("labels")),
    ...booleanEntries(metadata?.annotations, booleanAnnotations, metadataPath.child("annotations")),
  ];
}

function booleanEntries(map: unknown, keys: readonly string[], path: FieldPath): FieldErrorList {
  if (map === null || typeof map !== "object") return [];
  const entries = map as Record<string, unknown>;
  return keys
    .filter((key) => Object.hasOwn(entries, key) && !booleans.includes(entries[key] as string))
    .map((key) => fieldError.notSupported(path.key(key), entries[key], booleans));
}
