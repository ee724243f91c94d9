import type { ModuleTemplate } from "../../generated/moduletemplate.js";
import { fitWarning } from "../../validation/warning.js";

/** What is legal but deprecated, ignored or probably a mistake: shown to the user, template admitted. */
export function moduleTemplateWarnings(template: ModuleTemplate): string[] {
  const { spec } = template;
  const warnings: string[] = [];
  if (spec.channel) {
    warnings.push("spec.channel is deprecated: ModuleTemplates are tied to versions now, not channels");
  }
  if (spec.customStateCheck && spec.customStateCheck.length > 0) {
    warnings.push(
      "spec.customStateCheck is deprecated: define custom states in the module's custom resource",
    );
  }
  if (spec.data && Object.hasOwn(spec.data, "status")) {
    warnings.push(
      "spec.data.status is ignored: the lifecycle manager creates spec.data without subresources",
    );
  }
  const name = (template.metadata as { name?: unknown } | undefined)?.name;
  if (spec.moduleName && spec.version && typeof name === "string") {
    const expected = `${spec.moduleName}-${spec.version}`;
    if (name !== expected) {
      warnings.push(
        `metadata.name is not ${JSON.stringify(expected)} (<moduleName>-<version>), the name the lifecycle manager looks up`,
      );
    }
  }
  if (spec.moduleName && !spec.version) {
    warnings.push(
      "spec.moduleName is set without spec.version: templates are tied to versions, named <moduleName>-<version>",
    );
  }
  return warnings.map(fitWarning);
}
