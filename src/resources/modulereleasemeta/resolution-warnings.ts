import { formatMessage, warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import {
  celMessage,
  isUpdate,
  itemRule,
  objectRule,
  present,
  quoted,
  valueRule,
} from "../../cel/policy-cel.js";
import type { ModuleReleaseMetaSpec } from "../../generated/modulereleasemeta.js";
import { dns1123SubdomainProblems } from "../../validation/names.js";
import { compareSemver, parseSemver } from "../../validation/semver.js";

/**
 * CEL: a version lifecycle-manager can resolve: not empty, and with a module name, one a ModuleTemplate
 * name `<moduleName>-<version>` (a DNS-1123 subdomain) can carry.
 */
const resolvable = (version: string) => {
  const name = `object.spec.moduleName + '-' + ${version}`;
  return `${version} != '' && (!has(object.spec.moduleName) || object.spec.moduleName == '' || ((${name}).size() <= 253 && (${name}).matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')))`;
};

/**
 * modulereleasemeta.unresolvable's wording, for its check and its policy alike. The policy names the
 * version where the check says what is wrong with it (`{problem}`: empty, or no template can carry it).
 */
const unresolvable = {
  noComponentName: 'spec.ocmComponentName is not set: lifecycle-manager fails with "invalid component name"',
  channel: "{problem}: channel {channel} never resolves",
  mandatory: "{problem}: blocks every mandatory module for every Kyma",
} as const;

/** Versions and names lifecycle-manager can never resolve, and mandatory downgrades. */
export const resolutionRules = warningRules({
  "modulereleasemeta.unresolvable": {
    summary: "a version or component name lifecycle-manager can never resolve",
    realSystem:
      'fails without spec.ocmComponentName ("invalid component name"); finds no template for "" or a version no template can be named after; a missing mandatory one blocks every mandatory module',
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/moduletemplateinfolookup/lookup.go:54-60 and internal/descriptor/types/ocmidentity/ocmidentity.go:19-24; moduletemplateinfolookup/common.go:24 (the template name); internal/service/mandatorymodule/installation/installation_service.go:86-89 (a missing mandatory template returns from the loop)",
    messages: unresolvable,
    native: {
      by: "policy",
      policy: {
        coarserMessage:
          "CEL names an unresolvable version; the webhook says why it is one (empty, or no ModuleTemplate name can carry it)",
        validations: [
          objectRule({
            ok: `!has(object.spec) || (has(object.spec.ocmComponentName) && object.spec.ocmComponentName != '')`,
            field: "spec.ocmComponentName",
            detail: celMessage(unresolvable.noComponentName),
          }),
          itemRule({
            list: "object.spec.channels",
            field: "spec.channels",
            ok: (item) => resolvable(`${item}.version`),
            below: () => "'.version'",
            detail: (item) =>
              celMessage(unresolvable.channel, {
                problem: quoted(`${item}.version`),
                channel: quoted(`${item}.channel`),
              }),
            spare: false,
          }),
          valueRule({
            path: "object.spec.mandatory.version",
            field: "spec.mandatory.version",
            ok: resolvable,
            detail: (v) => celMessage(unresolvable.mandatory, { problem: quoted(v) }),
            ratchet: false,
          }),
        ],
      },
    },
  },
  "modulereleasemeta.mandatory-downgrade": {
    summary: "mandatory.version moved lower on UPDATE",
    realSystem:
      "installs the mandatory version on every Kyma without comparing versions: every Kyma is downgraded",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 internal/service/mandatorymodule/installation/installation_service.go:82-101 (mandatory.version installed on every Kyma, not compared)",
    transition: true,
    native: {
      by: "webhook",
      why: "semantic version precedence with pre-release identifiers compared one by one: not in a bounded CEL expression before Kubernetes 1.33's semver library",
      callWhen: `${isUpdate} && ${present("object.spec.mandatory.version")} && ${present("oldObject.spec.mandatory.version")} && object.spec.mandatory.version != oldObject.spec.mandatory.version`,
    },
  },
});

const specPath = FieldPath.root("spec");
const mandatoryVersion = specPath.child("mandatory").child("version");

/**
 * What Kyma's CRD admits but lifecycle-manager can never resolve (lookup.go, ocmidentity.go): no OCM
 * component name ("invalid component name"), an empty version, or a version that no ModuleTemplate
 * name `<name>-<version>` can carry (a custom resource's name is a DNS-1123 subdomain of at most 253
 * characters: no `+`, no capitals). `name` is the release meta's own metadata.name: lifecycle-manager
 * finds the release meta by the module's name (pkg/templatelookup/modulereleasemeta.go,
 * GetModuleReleaseMeta) and the template by that name and the version
 * (pkg/templatelookup/moduletemplateinfolookup/lookup.go:62-66, common.go CreateModuleTemplateName), not
 * by spec.moduleName; without one, spec.moduleName stands for it. For a mandatory module the last is
 * worse: KLM's mandatory install loop stops at the first template it cannot find, so every mandatory
 * module of every Kyma waits.
 */
export function resolutionWarnings(spec: ModuleReleaseMetaSpec | undefined, name?: string): FieldWarning[] {
  if (!spec) return [];
  const lookupName = name ?? spec.moduleName;
  const warnings: FieldWarning[] = [];
  if (!spec.ocmComponentName) {
    warnings.push(warningAt(specPath.child("ocmComponentName"), unresolvable.noComponentName));
  }
  (spec.channels ?? []).forEach((entry, i) => {
    const path = specPath.child("channels").index(i).child("version");
    const problem = versionProblem(lookupName, entry.version);
    if (problem)
      warnings.push(
        warningAt(
          path,
          `${path}: ${formatMessage(unresolvable.channel, { problem, channel: JSON.stringify(entry.channel) })}`,
        ),
      );
  });
  if (spec.mandatory) {
    const problem = versionProblem(lookupName, spec.mandatory.version);
    if (problem)
      warnings.push(
        warningAt(
          mandatoryVersion,
          `spec.mandatory.version: ${formatMessage(unresolvable.mandatory, { problem })}`,
        ),
      );
  }
  return warnings;
}

function versionProblem(moduleName: string | undefined, version: string): string | undefined {
  if (version === "") return 'is ""';
  if (!moduleName) return undefined;
  const name = `${moduleName}-${version}`;
  return dns1123SubdomainProblems(name).length > 0 ? `no ModuleTemplate can be named "${name}"` : undefined;
}

/**
 * lifecycle-manager installs a mandatory module's version on every Kyma without comparing it with the
 * installed one (installation_service.go): a lower mandatory version downgrades every Kyma.
 */
export function mandatoryDowngradeWarnings(
  oldSpec: ModuleReleaseMetaSpec | undefined,
  spec: ModuleReleaseMetaSpec | undefined,
): FieldWarning[] {
  const before = oldSpec?.mandatory?.version;
  const after = spec?.mandatory?.version;
  if (before === undefined || after === undefined || before === after) return [];
  const was = parseSemver(before);
  const now = parseSemver(after);
  if (!was || !now || compareSemver(now, was) >= 0) return [];
  return [
    warningAt(
      mandatoryVersion,
      `spec.mandatory.version: ${before} -> ${after} is lower: lifecycle-manager downgrades every Kyma`,
    ),
  ];
}
