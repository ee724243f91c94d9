import { isDeepStrictEqual } from "node:util";
import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, type Native, type RuleId } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, objectRule, present, quoted } from "../../cel/policy-cel.js";
import type { ModuleSpec } from "../../generated/module.js";

const update =
  "forkspacer/forkspacer v0.1.24 internal/webhook/v1/module_webhook.go, validateModuleImmutableUpdateFields";
const immutable = (summary: string) => ({
  summary,
  realSystem: "its webhook refuses the change on UPDATE",
  upstream: update,
  transition: true,
  native: { by: "crd" } as Native,
});

/** The immutables' wording (apimachinery's), for the check below and the policy alike. */
const immutableMessages = { immutable: "field is immutable" } as const;

/** CEL: spec.helm.namespace as stored, its default when absent (the operator's CRD defaults it too). */
const helmNamespaceCel = (object: string) =>
  `(has(${object}.spec.helm.namespace) ? ${object}.spec.helm.namespace : 'default')`;

/** The operator's immutables, on UPDATE. */
export const moduleUpdateRules = errorRules({
  "module.workspace-immutable": immutable("spec.workspace changed"),
  "module.config-immutable": immutable("spec.config changed"),
  "module.source-immutable": immutable("spec.helm or spec.custom added or removed"),
  "module.custom-image-immutable": immutable("spec.custom.image changed"),
  "module.release-name-immutable": {
    ...immutable("spec.helm.releaseName changed or removed"),
    realSystem: "its webhook refuses any change, nil → set included; we let a Module without a name get one",
  },
  "module.existing-release-immutable": immutable("spec.helm.existingRelease changed"),
  "module.helm-namespace-immutable": {
    ...immutable("spec.helm.namespace changed (neither side adopting a release)"),
    messages: immutableMessages,
    // A policy: the CRD's cost estimate refuses comparing two unbounded strings at spec.helm.
    native: {
      by: "policy",
      policy: {
        validations: [
          objectRule({
            ok: `!(${present("object.spec.helm")} && ${present("oldObject.spec.helm")}) || has(object.spec.helm.existingRelease) || has(oldObject.spec.helm.existingRelease) || ${helmNamespaceCel("object")} == ${helmNamespaceCel("oldObject")}`,
            field: "spec.helm.namespace",
            detail: `'Invalid value: ' + ${quoted(helmNamespaceCel("object"))} + ': ' + ${celMessage(immutableMessages.immutable)}`,
          }),
        ],
      },
    },
  },
  "module.outputs-immutable": immutable("spec.helm.outputs changed"),
});

const specPath = FieldPath.root("spec");
const helmPath = specPath.child("helm");
const customPath = specPath.child("custom");

/**
 * What the operator's webhook keeps immutable once a Module exists (module_webhook.go,
 * validateModuleImmutableUpdateFields): spec.workspace, spec.config, the presence of spec.helm and of
 * spec.custom, existingRelease, spec.helm.namespace (when neither side adopts an existing release),
 * spec.helm.outputs and spec.custom.image. A releaseName may be set once and never changed; unlike the
 * operator, nil → set is allowed, or Modules made by its earlier versions (without a name) are stranded.
 * Fields the API server defaults are compared with their defaults filled in.
 */
export function validateSpecUpdate(oldSpec: ModuleSpec, spec: ModuleSpec): FieldErrorList {
  const errors: FieldErrorList = [];
  const immutable = (
    rule: RuleId,
    path: FieldPath,
    value: unknown,
    detail: string = immutableMessages.immutable,
  ) => errors.push(...byRule(rule, [fieldError.invalid(path, value ?? null, detail)]));
  if (!sameWorkspace(oldSpec.workspace, spec.workspace)) {
    immutable("module.workspace-immutable", specPath.child("workspace"), spec.workspace);
  }
  if (!isDeepStrictEqual(oldSpec.config ?? null, spec.config ?? null)) {
    immutable("module.config-immutable", specPath.child("config"), spec.config);
  }
  const presence = (path: FieldPath, before: unknown, after: unknown) => {
    if (!before && after)
      immutable("module.source-immutable", path, after, "field cannot be added once the object is created");
    if (before && !after)
      immutable("module.source-immutable", path, null, "field cannot be removed once the object is created");
  };
  presence(helmPath, oldSpec.helm, spec.helm);
  presence(customPath, oldSpec.custom, spec.custom);
  if (oldSpec.custom && spec.custom && oldSpec.custom.image !== spec.custom.image) {
    immutable("module.custom-image-immutable", customPath.child("image"), spec.custom.image);
  }
  const [before, after] = [oldSpec.helm, spec.helm];
  if (!before || !after) return errors;
  if (before.releaseName !== undefined && after.releaseName !== before.releaseName) {
    immutable("module.release-name-immutable", helmPath.child("releaseName"), after.releaseName);
  }
  if (!sameRelease(before.existingRelease, after.existingRelease)) {
    immutable("module.existing-release-immutable", helmPath.child("existingRelease"), after.existingRelease);
  }
  if (!before.existingRelease && !after.existingRelease && helmNamespace(before) !== helmNamespace(after)) {
    immutable("module.helm-namespace-immutable", helmPath.child("namespace"), after.namespace);
  }
  if (!isDeepStrictEqual(withDefaults(before.outputs), withDefaults(after.outputs))) {
    immutable("module.outputs-immutable", helmPath.child("outputs"), after.outputs);
  }
  return errors;
}

// The CRD's default for a namespace the manifest leaves out.
const defaultNamespace = "default";
const helmNamespace = (helm: { namespace?: string }) => helm.namespace ?? defaultNamespace;

function sameWorkspace(
  a: ModuleSpec["workspace"] | undefined,
  b: ModuleSpec["workspace"] | undefined,
): boolean {
  return a?.name === b?.name && (a?.namespace ?? defaultNamespace) === (b?.namespace ?? defaultNamespace);
}

type ReleaseRef = { name: string; namespace?: string } | undefined;

function sameRelease(a: ReleaseRef, b: ReleaseRef): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.name === b.name && (a.namespace ?? defaultNamespace) === (b.namespace ?? defaultNamespace);
}

type Outputs = NonNullable<ModuleSpec["helm"]>["outputs"];

/** Outputs as stored: a Secret reference's namespace defaulted; no list and an empty one alike. */
function withDefaults(outputs: Outputs): unknown {
  return (outputs ?? []).map((output) => {
    const secret = output.valueFrom?.secret;
    if (!secret) return output;
    return {
      ...output,
      valueFrom: {
        ...output.valueFrom,
        secret: { ...secret, namespace: secret.namespace ?? defaultNamespace },
      },
    };
  });
}
