import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { WorkspaceReference } from "../../generated/module.js";

/** Whether a Workspace exists; the webhook answers it from an informer cache, never a request per call. */
export type WorkspaceLookup = (namespace: string, name: string) => boolean;

/** The operator's default when spec.workspace.namespace is not set (the Workspace reference says so). */
export const defaultWorkspaceNamespace = "default";

/** spec.workspace must name a Workspace that exists: the operator cannot deploy into one that does not. */
export function validateWorkspaceReference(
  reference: WorkspaceReference,
  workspaceExists: WorkspaceLookup,
): FieldErrorList {
  const namespace = reference.namespace || defaultWorkspaceNamespace;
  if (workspaceExists(namespace, reference.name)) return [];
  return [fieldError.notFound(FieldPath.root("spec").child("workspace"), `${namespace}/${reference.name}`)];
}
