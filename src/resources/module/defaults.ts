import type { AdmissionRequest } from "../../admission/review.js";
import type { MutationDeclaration } from "../../admission/rule-catalogue.js";
import { present } from "../../cel/policy-cel.js";
import type { Module } from "../../generated/module.js";
import { generateReleaseName } from "./release-name.js";

/** A helm Module without a release name and not adopting a release: what the default applies to. */
// Mutating admission runs before the schema's check: an object may lack spec, which has() must not assume.
const unnamed = `${present("object.spec.helm")} && !has(object.spec.helm.releaseName) && !has(object.spec.helm.existingRelease)`;
/** A name CEL can take as the release name: a DNS-1035 label of at most 53 characters. */
const nameFits = `has(object.metadata.name) && object.metadata.name.size() <= 53 && object.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`;
const oldName = "oldObject.spec.helm.releaseName";

/** The release name default, as a MutatingAdmissionPolicy where CEL can give it. */
export const moduleMutations: readonly MutationDeclaration[] = [
  {
    id: "module.release-name-default",
    summary:
      "a helm Module without releaseName (and not adopting a release) gets one; on UPDATE one that lost it gets the old one back",
    native: {
      by: "policy",
      policy: {
        path: "/spec/helm/releaseName",
        cases: [
          // CEL has no randomness, and a generateName object has no name yet: the Module's name, where it fits.
          { operation: "CREATE", when: `${unnamed} && ${nameFits}`, value: "object.metadata.name" },
          { operation: "UPDATE", when: `${unnamed} && ${present(oldName)}`, value: oldName },
        ],
        callWhen: `request.operation == 'CREATE' && ${unnamed} && !(${nameFits})`,
      },
    },
  },
];

/**
 * Gives a helm Module the release name the operator would otherwise generate, so that the name is
 * visible, stable and checked at admission. On UPDATE an object that lost its releaseName (kubectl
 * replace, GitOps tools that replace whole objects) gets the old one back instead of a new one.
 * Idempotent: a Module that has a release name, or adopts an existing release, is returned unchanged.
 */
export function applyModuleDefaults(
  module: Module,
  request: AdmissionRequest,
  oldModule: Module | undefined,
): Module {
  const helm = module?.spec?.helm;
  if (
    !helm ||
    typeof helm !== "object" ||
    helm.releaseName !== undefined ||
    helm.existingRelease !== undefined
  ) {
    return module;
  }
  const oldName = oldModule?.spec?.helm?.releaseName;
  if (request.operation === "UPDATE" && oldName === undefined) return module;
  // The API server decodes metadata.namespace as a string before any webhook sees it; a review that
  // says otherwise (the live-server fuzz sent {"toString": false}, which String() throws on) gets the
  // request's namespace.
  const objectNamespace = module.metadata?.namespace;
  const namespace = typeof objectNamespace === "string" ? objectNamespace : (request.namespace ?? "default");
  const releaseName = oldName ?? generateReleaseName(String(namespace));
  return { ...module, spec: { ...module.spec, helm: { ...helm, releaseName } } };
}
