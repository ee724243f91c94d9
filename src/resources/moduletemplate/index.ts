import { readFileSync } from "node:fs";
import { byRule } from "../../admission/field-errors.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import type { ModuleTemplate } from "../../generated/moduletemplate.js";
import { structureChecker } from "../../validation/structure.js";
import { fitWarning } from "../../validation/warning.js";
import { validateData } from "./data-rules.js";
import { validateBooleanLabels } from "./label-rules.js";
import { validateLinks } from "./link-rules.js";
import { validateStateChecks } from "./state-checks.js";
import { validateVersionUpdate } from "./update-rules.js";
import { moduleTemplateWarnings } from "./warnings.js";

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemaUrl = new URL("../../../schemas/dist/moduletemplate.schema.json", import.meta.url);
const checkStructure = structureChecker(JSON.parse(readFileSync(schemaUrl, "utf8")));

/**
 * Every rule for one ModuleTemplate. The structural check (Kyma's CRD constraints: patterns, required
 * fields, the mappedState enum) comes first; the rules after it rely on the generated types.
 */
function validateModuleTemplate(object: unknown): Verdict {
  const structure = checkStructure(object);
  const unknown = structure.unknownFields.map((field) => fitWarning(`unknown field "${field}"`));
  if (structure.errors.length > 0) {
    return { errors: byRule("moduletemplate.schema", structure.errors), warnings: unknown };
  }
  const template = object as ModuleTemplate;
  const errors = [
    ...byRule("moduletemplate.boolean-label", validateBooleanLabels(template.metadata)),
    ...byRule("moduletemplate.state-check", validateStateChecks(template.spec.customStateCheck ?? [])),
    ...byRule("moduletemplate.data", template.spec.data ? validateData(template.spec.data) : []),
    ...byRule("moduletemplate.links", validateLinks(template.spec)),
  ];
  return { errors, warnings: [...unknown, ...moduleTemplateWarnings(template)] };
}

export const moduleTemplateKind: ResourceKind<ModuleTemplate> = {
  group: "operator.kyma-project.io",
  version: "v1beta2",
  kind: "ModuleTemplate",
  rules: [
    "moduletemplate.schema",
    "moduletemplate.boolean-label",
    "moduletemplate.state-check",
    "moduletemplate.data",
    "moduletemplate.links",
    "moduletemplate.version-decrease",
  ],
  validator: {
    validate: (template) => validateModuleTemplate(template),
    validateTransition: (oldTemplate, template) => {
      if (checkStructure(template).errors.length > 0) return { errors: [], warnings: [] };
      const errors = validateVersionUpdate(oldTemplate?.spec, template.spec);
      return { errors: byRule("moduletemplate.version-decrease", errors), warnings: [] };
    },
  },
};
