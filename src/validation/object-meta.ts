import type { FieldPath } from "../admission/field-path.js";

/**
 * ObjectMeta's JSON fields (k8s.io/apimachinery pkg/apis/meta/v1 types.go), each `omitempty`: what
 * an object's metadata keeps once Go has decoded and encoded it again, as the API server does with a
 * custom resource's own metadata and with the metadata of each embedded resource.
 */
const objectMetaFields = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

/** A value `omitempty` leaves out (a pointer's 0 stays: deletionGracePeriodSeconds). */
function empty(key: string, value: unknown): boolean {
  if (value === null || value === "" || (value === 0 && key === "generation")) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value as object).length === 0;
}

/**
 * Metadata after Go's round trip through ObjectMeta: fields it does not have dropped (and named in
 * `pruned`: the API server warns of them), empty ones left out. Metadata that does not decode (a name
 * that is a list) is returned as it is: the request fails on it. Unchanged metadata is returned itself.
 */
export function roundTripObjectMeta(metadata: unknown, path: FieldPath, pruned: FieldPath[]): unknown {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return metadata;
  const record = metadata as Record<string, unknown>;
  let changed = false;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (!objectMetaFields.has(key)) {
      pruned.push(path.child(key));
      changed = true;
    } else if (empty(key, value)) changed = true;
    else {
      const decoded = withoutNulls(key, value);
      if (decoded !== value) changed = true;
      kept[key] = decoded;
    }
  }
  return changed ? kept : metadata;
}

/** A null label, annotation or finalizer decodes as Go's "" (a string's zero value). */
function withoutNulls(key: string, value: unknown): unknown {
  if (key === "finalizers" && Array.isArray(value) && value.includes(null))
    return value.map((item) => item ?? "");
  if ((key === "labels" || key === "annotations") && value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.some(([, v]) => v === null)) return Object.fromEntries(entries.map(([k, v]) => [k, v ?? ""]));
  }
  return value;
}
