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
   * or the layer and the cause type where there is no rule id (`cel/FieldValueInvalid`).
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
