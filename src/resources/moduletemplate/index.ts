import { readFileSync } from "node:fs";
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
  if (structure.errors.length > 0) return { errors: structure.errors, warnings: unknown };
  const template = object as ModuleTemplate;
  const errors = [
    ...validateBooleanLabels(template.metadata),
    ...validateStateChecks(template.spec.customStateCheck ?? []),
    ...(template.spec.data ? validateData(template.spec.data) : []),
    ...validateLinks(template.spec),
  ];
  return { errors, warnings: [...unknown, ...moduleTemplateWarnings(template)] };
}

export const moduleTemplateKind: ResourceKind<ModuleTemplate> = {
  group: "operator.kyma-project.io",
  version: "v1beta2",
  kind: "ModuleTemplate",
  validator: {
    validate: (template) => validateModuleTemplate(template),
    validateTransition: (oldTemplate, template) => {
      if (checkStructure(template).errors.length > 0) return { errors: [], warnings: [] };
      return { errors: validateVersionUpdate(oldTemplate?.spec, template.spec), warnings: [] };
    },
  },
};
