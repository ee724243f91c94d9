/** The `rule` label of a problem no declared rule id found (schema, limits, a warning without an id). */
export const noRule = "none";

/** A rule id as a label value: one the kind declares, else `none`, so no request can add a series. */
export function ruleLabel(rule: string | undefined, declared: readonly string[]): string {
  return rule !== undefined && declared.includes(rule) ? rule : noRule;
}
