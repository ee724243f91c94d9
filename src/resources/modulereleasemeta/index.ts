import type { FieldErrorList } from "../../admission/field-errors.js";
import type { ResourceKind } from "../../admission/resource-kind.js";
import type { AdmissionRequest } from "../../admission/review.js";
import { formatMessage, type IdsOf, warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, ruleWarnings, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, objectRule, quoted } from "../../cel/policy-cel.js";
import type { ModuleReleaseMeta, ModuleReleaseMetaSpec } from "../../generated/modulereleasemeta.js";
import { defineKind, type GateRuleIds } from "../define-kind.js";
import { channelRules, validateChannelUpdate, validateVersions, versionRules } from "./channel-rules.js";
import { mandatoryDowngradeWarnings, resolutionRules, resolutionWarnings } from "./resolution-warnings.js";
import { type ModuleTemplateLookup, templateExistsRules, validateTemplatesExist } from "./template-rules.js";

/** modulereleasemeta.name's wording, for its check and its policy alike. */
const nameMessages = {
  notModuleName:
    "metadata.name {name} is not spec.moduleName {moduleName}: lifecycle-manager looks it up by the module's name",
} as const;

/** lifecycle-manager finds a release meta by the module's name. */
const nameRules = warningRules({
  "modulereleasemeta.name": {
    summary: "metadata.name is not spec.moduleName",
    realSystem: "finds a release meta by the module's name as a Kyma lists it",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/modulereleasemeta.go:21-29 (Get by the Kyma's module name), pkg/templatelookup/regular.go:89",
    messages: nameMessages,
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: "!(has(object.metadata.name) && has(object.spec) && has(object.spec.moduleName) && object.spec.moduleName != '') || object.metadata.name == object.spec.moduleName",
            field: "metadata.name",
            detail: celMessage(nameMessages.notModuleName, {
              name: quoted("object.metadata.name"),
              moduleName: quoted("object.spec.moduleName"),
            }),
          }),
        ],
      },
    },
  },
});

const moduleReleaseMetaRules = [
  ...templateExistsRules,
  ...channelRules,
  ...versionRules,
  ...resolutionRules,
  ...nameRules,
];

// The kind's rule ids, so that its emit sites accept only these (src/admission/rule-catalogue.ts).
declare module "../../admission/rule-catalogue.js" {
  interface DeclaredRuleIds extends IdsOf<typeof moduleReleaseMetaRules>, GateRuleIds<"modulereleasemeta"> {}
}

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
): ResourceKind {
  const { moduleTemplateExists } = dependencies;
  // On UPDATE the protocol layer ratchets: a channel whose template was deleted since does not deny
  // updates that leave that channel alone (lifecycle-manager removing its finalizer, another channel).
  const templateRules = (meta: ModuleReleaseMeta, request: AdmissionRequest): FieldErrorList => {
    if (!moduleTemplateExists) return [];
    const objectNamespace = meta.metadata?.namespace;
    const namespace = request.namespace || (typeof objectNamespace === "string" ? objectNamespace : "");
    return validateTemplatesExist(meta.spec, namespace, moduleTemplateExists, metadataName(meta));
  };
  return defineKind<ModuleReleaseMeta, ModuleReleaseMetaSpec>({
    schema: "modulereleasemeta",
    schemaUpstream:
      "kyma-project/lifecycle-manager@c5b83f1 config/crd/bases/operator.kyma-project.io_modulereleasemetas.yaml; schemas/modulereleasemeta.yaml",
    schemaEnforcement: { why: "Kyma's CRD (lifecycle-manager's; ours reproduces it)" },
    rules: moduleReleaseMetaRules,
    state: (readable, { request }) => ({
      errors: [...validateVersions(readable.spec), ...templateRules(readable, request)],
      warnings: [
        ...ruleWarnings("modulereleasemeta.name", nameWarnings(readable)),
        ...ruleWarnings(
          "modulereleasemeta.unresolvable",
          resolutionWarnings(readable.spec, metadataName(readable)),
        ),
      ],
    }),
    // A channel name too short for today's schema still names its channel.
    transition: (before, after) => {
      const channels = validateChannelUpdate(before, after);
      return {
        ...channels,
        warnings: [
          ...ruleWarnings("modulereleasemeta.channel-prerelease", channels.warnings),
          ...ruleWarnings("modulereleasemeta.mandatory-downgrade", mandatoryDowngradeWarnings(before, after)),
        ],
      };
    },
  });
}

const metadataName = (meta: ModuleReleaseMeta): string | undefined =>
  typeof meta.metadata?.name === "string" && meta.metadata.name !== "" ? meta.metadata.name : undefined;

/**
 * lifecycle-manager finds a release meta by the module's name as a Kyma lists it, and then the template
 * `<that name>-<version>`: a release meta named otherwise than its spec.moduleName is found (if at all)
 * under another module.
 */
function nameWarnings(meta: ModuleReleaseMeta): FieldWarning[] {
  const name = meta.metadata?.name;
  const moduleName = meta.spec?.moduleName;
  if (typeof name !== "string" || !moduleName || name === moduleName) return [];
  return [
    warningAt(
      FieldPath.root("metadata").child("name"),
      formatMessage(nameMessages.notModuleName, {
        name: JSON.stringify(name),
        moduleName: JSON.stringify(moduleName),
      }),
    ),
  ];
}

export const moduleReleaseMetaKind: ResourceKind = createModuleReleaseMetaKind();
