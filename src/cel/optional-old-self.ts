/**
 * A CRD rule with `optionalOldSelf: true` runs on CREATE too, `oldSelf` then an optional without a value.
 * The rules of this project read it only as `oldSelf.hasValue()` and `oldSelf.value()`; this rewrites
 * them to a boolean `oldSelfPresent` and a plain `oldSelf`, which @bufbuild/cel (without optional types)
 * and the policy a CRD rule becomes can evaluate. Any other use of `oldSelf` in such a rule is refused.
 */
export function withoutOptionalOldSelf(rule: string): string {
  const rewritten = rule
    .replaceAll("oldSelf.hasValue()", "oldSelfPresent")
    .replaceAll("oldSelf.value()", "oldSelf");
  const left = rewritten.replaceAll("oldSelfPresent", "").replace(/\boldSelf\b(?=\s*\.)/g, "");
  if (/\boldSelf\b/.test(left))
    throw new Error(
      `a rule with optionalOldSelf may read oldSelf only as oldSelf.hasValue() and oldSelf.value(): ${rule}`,
    );
  return rewritten;
}
