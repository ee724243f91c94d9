import { readFileSync } from "node:fs";
import type { FieldErrorList } from "../../admission/field-errors.js";
import type { ResourceKind } from "../../admission/resource-kind.js";
import type { AdmissionRequest } from "../../admission/review.js";
import { fitWarning, ruleWarnings } from "../../admission/warning.js";
import type { ModuleReleaseMeta, ModuleReleaseMetaSpec } from "../../generated/modulereleasemeta.js";
import { behindStructureGate, onReadableSpecs } from "../../validation/readable.js";
import { structureChecker } from "../../validation/structure.js";
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
    warningRules: [
      "modulereleasemeta.unknown-field",
      "modulereleasemeta.name",
      "modulereleasemeta.unresolvable",
      "modulereleasemeta.channel-prerelease",
      "modulereleasemeta.mandatory-downgrade",
    ],
    rules: [
      "modulereleasemeta.schema",
      "modulereleasemeta.template-exists",
      "modulereleasemeta.channel-downgrade",
    ],
    validator: {
      validate: (meta, request, _focus, budget) =>
        behindStructureGate<ModuleReleaseMeta>(
          checkStructure,
          { schema: "modulereleasemeta.schema", unknownField: "modulereleasemeta.unknown-field" },
          meta,
          (readable) => ({
            errors: templateRules(readable, request),
            warnings: [
              ...ruleWarnings("modulereleasemeta.name", nameWarnings(readable)),
              ...ruleWarnings("modulereleasemeta.unresolvable", resolutionWarnings(readable.spec)),
            ],
          }),
          budget,
        ),
      // Never skipped: each side is read as far as its values have the right type (a channel name
      // too short for today's schema still names its channel).
      validateTransition: (oldMeta, meta, _request, budget) =>
        onReadableSpecs<ModuleReleaseMetaSpec>(
          checkStructure,
          oldMeta,
          meta,
          (before, after) => {
            const channels = validateChannelUpdate(before, after);
            return {
              ...channels,
              warnings: [
                ...ruleWarnings("modulereleasemeta.channel-prerelease", channels.warnings),
                ...ruleWarnings(
                  "modulereleasemeta.mandatory-downgrade",
                  mandatoryDowngradeWarnings(before, after),
                ),
              ],
            };
          },
          budget,
        ),
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
