import type { FieldPath } from "./field-path.js";
import { limits, truncate } from "./limits.js";

/** One problem an offline check found, located in a file: what `validate` and `lint-modules` report. */
export interface Finding {
  severity: "error" | "warning";
  file: string;
  /** 1-based line of the offending field, when known. */
  line?: number;
  /** `Module default/redis`: the object the finding is about, when there is one. */
  object?: string;
  /**
   * A stable rule id for SARIF: the layer and the webhook's rule id (`validating-webhook/module.source`),
   * or the layer and the cause type where there is no rule id (`metadata/FieldValueInvalid`).
   */
  rule: string;
  /** The message in kubectl's wording, field path first. */
  message: string;
  /** The field it is about (`spec.config.replicas`), when it names one: KRM results carry it. */
  field?: string;
  /** The object's identity, for a KRM result's resourceRef. */
  resource?: ResourceRef;
}

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name?: string;
  namespace?: string;
}

/** Where a finding is: its file (or API path), line, object and identity. */
export type Place = Pick<Finding, "file" | "line" | "object" | "resource">;

/** A finding's field, rendered as the denial's cause renders it (cut when a request chose a huge key). */
export function findingField(field: FieldPath): { field?: string } {
  return field.isEmpty ? {} : { field: truncate(field.toString(), limits.fieldChars) };
}
