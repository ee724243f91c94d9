import { readFileSync } from "node:fs";
import { byRule, type FieldErrorList } from "../../admission/field-errors.js";
import type { ResourceKind } from "../../admission/resource-kind.js";
import type { AdmissionRequest } from "../../admission/review.js";
import type { ModuleReleaseMeta } from "../../generated/modulereleasemeta.js";
import { structureChecker } from "../../validation/structure.js";
import { fitWarning } from "../../validation/warning.js";
import { validateChannelUpdate } from "./channel-rules.js";
import { mandatoryDowngradeWarnings, resolutionWarnings } from "./resolution-warnings.js";
import { type ModuleTemplateLookup, validateTemplatesExist } from "./template-rules.js";

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemaUrl = new URL("../../../schemas/dist/modulereleasemeta.schema.json", import.meta.url);
const checkStructure = structureChecker(JSON.parse(readFileSync(schemaUrl, "utf8")));

export interface ModuleReleaseMetaKindDependencies {
  /** Without it (no cluster, or `validate` offline), the templates a channel names are not checked. */
  moduleTemplateExists?: ModuleTemplateLookup;
}

/**
 * Kyma's ModuleReleaseMeta. Its CRD (with the CEL rule "exactly one of mandatory or channels") is
 * enforced by the API server before this webhook runs, and offline by `validate`; the webhook adds the
 * channel downgrade rule and, with a cluster, that each assigned version has its ModuleTemplate.
 */
export function createModuleReleaseMetaKind(
  dependencies: ModuleReleaseMetaKindDependencies = {},
): ResourceKind<ModuleReleaseMeta> {
  const { moduleTemplateExists } = dependencies;
  // On UPDATE the protocol layer ratchets: a channel whose template was deleted since does not deny
  // updates that leave that channel alone (lifecycle-manager removing its finalizer, another channel).
  const templateRules = (meta: ModuleReleaseMeta, request: AdmissionRequest): FieldErrorList => {
    if (!moduleTemplateExists) return [];
    const namespace = request.namespace || String(meta.metadata?.namespace ?? "");
    return validateTemplatesExist(meta.spec, namespace, moduleTemplateExists);
  };
  return {
    group: "operator.kyma-project.io",
    version: "v1beta2",
    kind: "ModuleReleaseMeta",
    rules: [
      "modulereleasemeta.schema",
      "modulereleasemeta.template-exists",
      "modulereleasemeta.channel-downgrade",
    ],
    validator: {
      validate: (meta, request) => {
        const structure = checkStructure(meta);
        const warnings = structure.unknownFields.map((field) => fitWarning(`unknown field "${field}"`));
        if (structure.errors.length > 0) {
          return { errors: byRule("modulereleasemeta.schema", structure.errors), warnings };
        }
        const resolution = resolutionWarnings(meta.spec);
        return {
          errors: templateRules(meta, request),
          warnings: [...warnings, ...nameWarnings(meta), ...resolution],
        };
      },
      validateTransition: (oldMeta, meta) => {
        if (checkStructure(oldMeta).errors.length > 0 || checkStructure(meta).errors.length > 0) {
          return { errors: [], warnings: [] };
        }
        const channels = validateChannelUpdate(oldMeta.spec, meta.spec);
        return {
          ...channels,
          warnings: [...channels.warnings, ...mandatoryDowngradeWarnings(oldMeta.spec, meta.spec)],
        };
      },
    },
  };
}

/**
 * lifecycle-manager finds a release meta by the module's name as a Kyma lists it, and then the template
 * `<that name>-<version>`: a release meta named otherwise than its spec.moduleName is found (if at all)
 * under another module.
 */
function nameWarnings(meta: ModuleReleaseMeta): string[] {
  const name = meta.metadata?.name;
  const moduleName = meta.spec?.moduleName;
  if (typeof name !== "string" || !moduleName || name === moduleName) return [];
  return [
    fitWarning(
      `metadata.name ${JSON.stringify(name)} is not spec.moduleName ${JSON.stringify(moduleName)}: lifecycle-manager looks it up by the module's name`,
    ),
  ];
}

export const moduleReleaseMetaKind: ResourceKind<ModuleReleaseMeta> = createModuleReleaseMetaKind();
