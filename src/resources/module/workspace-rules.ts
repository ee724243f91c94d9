import { type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import type { WorkspaceReference } from "../../generated/module.js";
import type { WorkspaceLookup } from "../lookups.js";

/** With cluster access: spec.workspace names a Workspace that exists. */
export const workspaceReferenceRules = errorRules({
  "module.workspace-exists": {
    summary: "spec.workspace names a Workspace that does not exist (with cluster access)",
    realSystem: "its webhook refuses it on CREATE (a live GET); a deleted Workspace fails only new Modules",
    upstream: "forkspacer/forkspacer v0.1.24 internal/webhook/v1/module_webhook.go, ValidateCreate",
    // On UPDATE it never denies: spec.workspace is immutable, and ratcheting spares a Workspace deleted since.
    native: {
      by: "webhook",
      why: "a lookup of another object (the Workspace): a policy sees only the object under review",
      callWhen: "request.operation == 'CREATE'",
    },
  },
});

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
