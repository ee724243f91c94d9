import { taggedRuleId } from "../codegen/crd-rules.js";
import type { Problem } from "./admit.js";
import type { OfflineKind } from "./kinds.js";

/**
 * A CRD rule's finding names its declared rule: the one its message names (`(rule module.source)`), else
 * (a CRD's own rule, as Kyma's, and the rules left unchecked behind schema errors) the kind's schema rule.
 */
export function withCelRule(kind: OfflineKind, found: Problem): Problem {
  if (found.stage !== "cel" || found.rule !== undefined) return found;
  const schemaRule = `${kind.source.name}.schema`;
  const declared = kind.kind.declarations?.some((rule) => rule.id === schemaRule) === true;
  const rule = taggedRuleId(found.message) ?? (declared ? schemaRule : undefined);
  return rule === undefined ? found : { ...found, rule };
}
