import { readFileSync } from "node:fs";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import { ruleWarnings } from "../../admission/warning.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import type { ModuleTemplate, ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { behindStructureGate, onReadableSpecs } from "../../validation/readable.js";
import { structureChecker } from "../../validation/structure.js";
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
 * Every rule for one ModuleTemplate, behind a field-scoped structural check (Kyma's CRD, nothing more):
 * the rules rely on the generated types, so they read the part of the template its schema accepts.
 */
function validateModuleTemplate(object: unknown, budget?: WorkBudget): Verdict {
  return behindStructureGate<ModuleTemplate>(
    checkStructure,
    { schema: "moduletemplate.schema", unknownField: "moduletemplate.unknown-field" },
    object,
    (template) => {
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
        ...ruleWarnings("moduletemplate.labels", labelWarnings(template.metadata, spec.moduleName)),
        ...ruleWarnings("moduletemplate.advice", moduleTemplateWarnings(template)),
      ];
      return { errors, warnings };
    },
    budget,
  );
}

export const moduleTemplateKind: ResourceKind<ModuleTemplate> = {
  group: "operator.kyma-project.io",
  version: "v1beta2",
  kind: "ModuleTemplate",
  warningRules: ["moduletemplate.unknown-field", "moduletemplate.labels", "moduletemplate.advice"],
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
    // Never skipped: each side is read as far as its values have the right type.
    validateTransition: (oldTemplate, template, _request, budget) =>
      onReadableSpecs<ModuleTemplateSpec>(
        checkStructure,
        oldTemplate,
        template,
        (before, after) => ({
          errors: validateIdentityUpdate(before, after),
          warnings: [],
        }),
        budget,
      ),
  },
};
