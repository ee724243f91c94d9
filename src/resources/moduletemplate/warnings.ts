import { formatMessage, warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, type RuleWarning, ruleWarnings, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, celString, objectRule, present, quoted } from "../../cel/policy-cel.js";
import type { ModuleTemplate, ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { nameParts, templateNameRe2 } from "./name-rules.js";

/** The warnings' wording, for the checks below and the policies alike. */
const advice = {
  channel: "spec.channel is deprecated: ModuleTemplates are tied to versions now, not channels",
  customStateCheck:
    "spec.customStateCheck is ignored: lifecycle-manager no longer reads it; define states in the module's resource",
  dataStatus: "spec.data.status is ignored: the lifecycle manager creates spec.data without subresources",
  unversioned:
    "spec.version is not set: the template cannot be resolved by current lifecycle-manager (<moduleName>-<version>)",
  unlookedUpName:
    "metadata.name is not {expected} (<moduleName>-<version>), the name the lifecycle manager looks up",
} as const;
const mandatoryMessages = {
  mandatory:
    'spec.mandatory is true: a Kyma that lists module {moduleName} fails ("no templates were found")',
} as const;

/** The warning rules of a template's spec: what lifecycle-manager ignores, cannot resolve or refuses. */
export const templateWarningRules = warningRules({
  "moduletemplate.advice": {
    summary:
      "deprecated and ignored fields, a template without spec.version, a name lifecycle-manager never looks up",
    realSystem:
      "ignores spec.customStateCheck, spec.data.status and spec.channel; cannot resolve a template without spec.version",
    upstream:
      'kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:113 and internal/descriptor/types/ocmidentity/ocmidentity.go:22 (no spec.version: "invalid component version"); api/v1beta2/moduletemplate_types.go:238',
    messages: advice,
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: `!(${present("object.spec.channel")}) || object.spec.channel == ''`,
            field: "spec.channel",
            detail: celMessage(advice.channel),
          }),
          objectRule({
            ok: `!(${present("object.spec.customStateCheck")}) || object.spec.customStateCheck.size() == 0`,
            field: "spec.customStateCheck",
            detail: celMessage(advice.customStateCheck),
          }),
          objectRule({
            // spec.data's type knows apiVersion, kind and metadata only: read it as a map.
            ok: `!(${present("object.spec.data")}) || !('status' in dyn(object.spec.data))`,
            field: "spec.data.status",
            detail: celMessage(advice.dataStatus),
          }),
          objectRule({
            ok: `${present("object.spec.version")} && object.spec.version != ''`,
            field: "spec.version",
            detail: celMessage(advice.unversioned),
          }),
          objectRule({
            ok: `!(${present("object.spec.moduleName")} && object.spec.moduleName != '' && has(object.spec.version) && object.spec.version != '' && has(object.metadata.name)) || object.metadata.name.matches(${celString(templateNameRe2)})`,
            field: "metadata.name",
            detail: celMessage(advice.unlookedUpName, {
              expected: quoted("object.spec.moduleName + '-' + object.spec.version"),
            }),
          }),
        ],
      },
    },
  },
  "moduletemplate.mandatory": {
    summary: "a versioned template with spec.mandatory: true",
    realSystem:
      'a Kyma that lists the module fails: the lookup refuses a mandatory template with "no templates were found"',
    upstream: "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:159-162",
    messages: mandatoryMessages,
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: `!(${present("object.spec.mandatory")} && object.spec.mandatory && has(object.spec.version) && object.spec.version != '')`,
            field: "spec.mandatory",
            detail: celMessage(mandatoryMessages.mandatory, {
              moduleName: quoted("(has(object.spec.moduleName) ? object.spec.moduleName : '')"),
            }),
          }),
        ],
      },
    },
  },
});

/** Every warning of `templateWarningRules`, each with its rule id. */
export function templateWarnings(template: ModuleTemplate): RuleWarning[] {
  const spec: Partial<ModuleTemplateSpec> = template.spec ?? {};
  // An unversioned template is unresolvable already (moduletemplate.advice): nothing more to say of it.
  const mandatory =
    spec.mandatory === true && spec.version
      ? [
          warningAt(
            FieldPath.root("spec").child("mandatory"),
            formatMessage(mandatoryMessages.mandatory, { moduleName: JSON.stringify(spec.moduleName ?? "") }),
          ),
        ]
      : [];
  return [
    ...ruleWarnings("moduletemplate.advice", moduleTemplateWarnings(template)),
    ...ruleWarnings("moduletemplate.mandatory", mandatory),
  ];
}

/** What is legal but deprecated, ignored or probably a mistake: shown to the user, template admitted. */
export function moduleTemplateWarnings(template: ModuleTemplate): FieldWarning[] {
  const spec: Partial<ModuleTemplateSpec> = template.spec ?? {};
  const warnings: FieldWarning[] = [];
  const specPath = FieldPath.root("spec");
  if (spec.channel) {
    warnings.push(warningAt(specPath.child("channel"), advice.channel));
  }
  if (spec.customStateCheck && spec.customStateCheck.length > 0) {
    warnings.push(warningAt(specPath.child("customStateCheck"), advice.customStateCheck));
  }
  if (spec.data && Object.hasOwn(spec.data, "status")) {
    warnings.push(warningAt(specPath.child("data").child("status"), advice.dataStatus));
  }
  if (!spec.version) {
    warnings.push(warningAt(specPath.child("version"), advice.unversioned));
  }
  const name = (template.metadata as { name?: unknown } | undefined)?.name;
  // A name with the <moduleName>-<version> shape that disagrees is denied on CREATE; any other name
  // is one lifecycle-manager never looks up.
  if (spec.moduleName && spec.version && typeof name === "string" && !nameParts(name)) {
    const expected = `${spec.moduleName}-${spec.version}`;
    warnings.push(
      warningAt(
        FieldPath.root("metadata").child("name"),
        formatMessage(advice.unlookedUpName, { expected: JSON.stringify(expected) }),
      ),
    );
  }
  return warnings;
}
