import { FieldPath } from "../../admission/field-path.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import type { ModuleTemplate, ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { nameParts } from "./name-rules.js";

/** What is legal but deprecated, ignored or probably a mistake: shown to the user, template admitted. */
export function moduleTemplateWarnings(template: ModuleTemplate): FieldWarning[] {
  const spec: Partial<ModuleTemplateSpec> = template.spec ?? {};
  const warnings: FieldWarning[] = [];
  const specPath = FieldPath.root("spec");
  if (spec.channel) {
    warnings.push(
      warningAt(
        specPath.child("channel"),
        "spec.channel is deprecated: ModuleTemplates are tied to versions now, not channels",
      ),
    );
  }
  if (spec.customStateCheck && spec.customStateCheck.length > 0) {
    warnings.push(
      warningAt(
        specPath.child("customStateCheck"),
        "spec.customStateCheck is ignored: lifecycle-manager no longer reads it; define states in the module's resource",
      ),
    );
  }
  if (spec.data && Object.hasOwn(spec.data, "status")) {
    warnings.push(
      warningAt(
        specPath.child("data").child("status"),
        "spec.data.status is ignored: the lifecycle manager creates spec.data without subresources",
      ),
    );
  }
  if (!spec.version) {
    warnings.push(
      warningAt(
        specPath.child("version"),
        "spec.version is not set: the template cannot be resolved by current lifecycle-manager (<moduleName>-<version>)",
      ),
    );
  }
  const name = (template.metadata as { name?: unknown } | undefined)?.name;
  // A name with the <moduleName>-<version> shape that disagrees is denied on CREATE; any other name
  // is one lifecycle-manager never looks up.
  if (spec.moduleName && spec.version && typeof name === "string" && !nameParts(name)) {
    const expected = `${spec.moduleName}-${spec.version}`;
    warnings.push(
      warningAt(
        FieldPath.root("metadata").child("name"),
        `metadata.name is not ${JSON.stringify(expected)} (<moduleName>-<version>), the name the lifecycle manager looks up`,
      ),
    );
  }
  return warnings;
}
