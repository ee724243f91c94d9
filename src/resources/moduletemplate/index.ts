import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import type { IdsOf } from "../../admission/rule-catalogue.js";
import { ruleWarnings } from "../../admission/warning.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import type { ModuleTemplate, ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { defineKind, type GateRuleIds } from "../define-kind.js";
import { dataRules, validateData } from "./data-rules.js";
import { labelRules, labelWarnings, validateClusterScopedAnnotation } from "./label-rules.js";
import { infoLinkRules, infoLinkWarnings, linkRules, validateLinks } from "./link-rules.js";
import { nameRules, validateNameMatchesSpec } from "./name-rules.js";
import { identityRules, validateIdentityUpdate } from "./update-rules.js";
import { templateWarningRules, templateWarnings } from "./warnings.js";

const moduleTemplateRules = [
  ...labelRules,
  ...nameRules,
  ...dataRules,
  ...linkRules,
  ...infoLinkRules,
  ...identityRules,
  ...templateWarningRules,
];

// The kind's rule ids, so that its emit sites accept only these (src/admission/rule-catalogue.ts).
declare module "../../admission/rule-catalogue.js" {
  interface DeclaredRuleIds extends IdsOf<typeof moduleTemplateRules>, GateRuleIds<"moduletemplate"> {}
}

/**
 * Every rule for one ModuleTemplate, behind the field-scoped structure gate (Kyma's CRD, nothing more):
 * the rules rely on the generated types, so they read the part of the template its schema accepts.
 */
function validateModuleTemplate(template: ModuleTemplate, budget: WorkBudget): Verdict {
  const spec: Partial<ModuleTemplateSpec> = template.spec ?? {};
  const metadata = template.metadata as { name?: unknown } | undefined;
  const errors = [
    ...validateClusterScopedAnnotation(template.metadata),
    // A name never changes, nor (validateTransition) do moduleName and version: on UPDATE, ratcheting
    // spares a stored template that disagrees, so in effect this judges CREATE.
    ...validateNameMatchesSpec(metadata?.name, spec),
    ...(spec.data ? validateData(spec.data) : []),
    ...validateLinks(spec, budget),
  ];
  const warnings = [
    ...ruleWarnings("moduletemplate.labels", labelWarnings(template.metadata, spec.moduleName)),
    ...ruleWarnings("moduletemplate.info-link", infoLinkWarnings(spec)),
    ...templateWarnings(template),
  ];
  return { errors, warnings };
}

export const moduleTemplateKind: ResourceKind = defineKind<ModuleTemplate, ModuleTemplateSpec>({
  schema: "moduletemplate",
  schemaUpstream:
    "kyma-project/lifecycle-manager@c5b83f1 config/crd/bases/operator.kyma-project.io_moduletemplates.yaml; schemas/moduletemplate.yaml",
  schemaEnforcement: { why: "Kyma's CRD (lifecycle-manager's; ours reproduces it)" },
  rules: moduleTemplateRules,
  state: (template, { budget }) => validateModuleTemplate(template, budget),
  transition: (before, after) => ({ errors: validateIdentityUpdate(before, after), warnings: [] }),
});
