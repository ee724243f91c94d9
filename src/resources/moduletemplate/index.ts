import { readFileSync } from "node:fs";
import { byRule } from "../../admission/field-errors.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import type { ModuleTemplate, ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { structureChecker } from "../../validation/structure.js";
import { fitWarning } from "../../validation/warning.js";
import { validateData } from "./data-rules.js";
import { labelWarnings, validateClusterScopedAnnotation } from "./label-rules.js";
import { validateLinks } from "./link-rules.js";
import { validateNameMatchesSpec } from "./name-rules.js";
import { validateIdentityUpdate } from "./update-rules.js";
import { moduleTemplateWarnings } from "./warnings.js";

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemaUrl = new URL("../../../schemas/dist/moduletemplate.schema.json", import.meta.url);
const checkStructure = structureChecker(JSON.parse(readFileSync(schemaUrl, "utf8")));

/**
 * Every rule for one ModuleTemplate. The structural check (Kyma's CRD, nothing more) comes first; the
 * rules after it rely on the generated types.
 */
function validateModuleTemplate(object: unknown, budget?: WorkBudget): Verdict {
  const structure = checkStructure(object, budget);
  const unknown = structure.unknownFields.map((field) => fitWarning(`unknown field "${field}"`));
  if (structure.errors.length > 0) {
    return { errors: byRule("moduletemplate.schema", structure.errors), warnings: unknown };
  }
  const template = object as ModuleTemplate;
  const spec: Partial<ModuleTemplateSpec> = template.spec ?? {};
  const metadata = template.metadata as { name?: unknown } | undefined;
  const errors = [
    ...validateClusterScopedAnnotation(template.metadata),
    // A name never changes, nor (validateTransition) do moduleName and version: on UPDATE, ratcheting
    // spares a stored template that disagrees, so in effect this judges CREATE.
    ...validateNameMatchesSpec(metadata?.name, spec),
    ...(spec.data ? validateData(spec.data) : []),
    ...validateLinks(spec),
  ];
  const warnings = [
    ...unknown,
    ...labelWarnings(template.metadata, spec.moduleName),
    ...moduleTemplateWarnings(template),
  ];
  return { errors, warnings };
}

export const moduleTemplateKind: ResourceKind<ModuleTemplate> = {
  group: "operator.kyma-project.io",
  version: "v1beta2",
  kind: "ModuleTemplate",
  rules: [
    "moduletemplate.schema",
    "moduletemplate.cluster-scoped",
    "moduletemplate.name-matches-spec",
    "moduletemplate.data-api-version",
    "moduletemplate.data-kind",
    "moduletemplate.link",
    "moduletemplate.unique-name",
    "moduletemplate.immutable-identity",
  ],
  validator: {
    validate: (template, _request, _focus, budget) => validateModuleTemplate(template, budget),
    validateTransition: (oldTemplate, template, _request, budget) => {
      // An old object that is not a ModuleTemplate (a hand-made review) cannot anchor the rule.
      if (
        checkStructure(oldTemplate, budget).errors.length > 0 ||
        checkStructure(template, budget).errors.length > 0
      ) {
        return { errors: [], warnings: [] };
      }
      return { errors: validateIdentityUpdate(oldTemplate.spec, template.spec), warnings: [] };
    },
  },
};
