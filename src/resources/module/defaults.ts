import type { AdmissionRequest } from "../../admission/review.js";
import type { Module } from "../../generated/module.js";
import { generateReleaseName } from "./release-name.js";

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
  const namespace = module.metadata?.namespace ?? request.namespace ?? "default";
  const releaseName = oldName ?? generateReleaseName(String(namespace));
  return { ...module, spec: { ...module.spec, helm: { ...helm, releaseName } } };
}
