import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import type { ModuleReleaseMetaSpec } from "../../generated/modulereleasemeta.js";

/** With cluster access: each version the release meta assigns has its ModuleTemplate. */
export const templateExistsRules = errorRules({
  "modulereleasemeta.template-exists": {
    summary:
      "a channel or mandatory version with no ModuleTemplate <moduleName>-<version> (with cluster access)",
    realSystem:
      "installs that template from the release meta's namespace; until it exists every Kyma on the channel fails (a mandatory one: every mandatory module waits)",
    stricter:
      "the API server stores it and a template created later would resolve it: create the template first (unknown while the cache syncs admits)",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/moduletemplateinfolookup/lookup.go:43-70, common.go:16-33 (Get <name>-<version> in the Kyma's namespace)",
    native: {
      by: "webhook",
      why: "a lookup of other objects (the ModuleTemplates): a policy sees only the object under review",
      callWhen:
        "has(object.spec) && has(object.spec.moduleName) && object.spec.moduleName != '' && ((has(object.spec.channels) && object.spec.channels.exists(c, c.version != '')) || (has(object.spec.mandatory) && object.spec.mandatory.version != ''))",
    },
  },
});

/** Whether a ModuleTemplate exists; answered from an informer cache, unknown (not synced) is true. */
export type ModuleTemplateLookup = (namespace: string, name: string) => boolean;

const specPath = FieldPath.root("spec");

interface Assignment {
  version: string;
  path: FieldPath;
}

/** Every version the release meta assigns, with the field that assigns it. */
function assignedVersions(spec: ModuleReleaseMetaSpec | undefined): Assignment[] {
  const channels = (spec?.channels ?? []).map((entry, i) => ({
    version: entry.version,
    path: specPath.child("channels").index(i).child("version"),
  }));
  const mandatory = spec?.mandatory
    ? [
        {
          key: "mandatory",
          version: spec.mandatory.version,
          path: specPath.child("mandatory").child("version"),
        },
      ]
    : [];
  return [...channels, ...mandatory];
}

/**
 * Each assigned version has its ModuleTemplate `<name>-<version>` in the release meta's namespace
 * (rule modulereleasemeta.template-exists): lifecycle-manager looks the template up by exactly that name
 * (the release meta's metadata.name, which is the module's name it was found by: lookup.go:62-66) and
 * cannot install the module of a channel without one. An empty version names no template.
 */
export function validateTemplatesExist(
  spec: ModuleReleaseMetaSpec | undefined,
  namespace: string,
  templateExists: ModuleTemplateLookup,
  name = spec?.moduleName,
): FieldErrorList {
  if (!spec?.moduleName || !name) return [];
  const errors: FieldErrorList = assignedVersions(spec)
    .filter(({ version }) => version !== "")
    .filter(({ version }) => !templateExists(namespace, `${name}-${version}`))
    .map(({ path, version }) =>
      fieldError.notFound(
        path,
        `${namespace}/${name}-${version}`,
        "no such ModuleTemplate (<moduleName>-<version>): lifecycle-manager cannot install this version",
      ),
    );
  return byRule("modulereleasemeta.template-exists", errors);
}
