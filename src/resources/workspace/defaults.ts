import type { AdmissionRequest } from "../../admission/review.js";
import type { MutationDeclaration } from "../../admission/rule-catalogue.js";
import type { Workspace } from "../../generated/workspace.js";

const named = "has(object.metadata.name) && object.metadata.name != ''";
// Mutating admission runs before the schema's check: an object may lack spec, which has() must not assume.
const managed = "has(object.spec) && has(object.spec.type) && object.spec.type == 'managed'";

/** The managed Workspace's connection, as a MutatingAdmissionPolicy where the name is known. */
export const workspaceMutations: readonly MutationDeclaration[] = [
  {
    id: "workspace.managed-connection",
    summary: "a managed Workspace is connected through the kubeconfig Secret its managed cluster writes",
    native: {
      by: "policy",
      policy: {
        path: "/spec/connection",
        cases: (["CREATE", "UPDATE"] as const).map((operation) => ({
          operation,
          when: `${managed} && ${named}`,
          // dyn(): CEL's map literals are homogeneous, and this one holds a string and a map.
          value:
            "{'type': dyn('kubeconfig'), 'secretReference': dyn({'name': 'vc-kubeconfig-' + object.metadata.name, 'namespace': 'forkspacer-' + object.metadata.name, 'key': 'config'})}",
        })),
        // A generateName Workspace has no name at mutating admission.
        callWhen: `${managed} && !(${named})`,
      },
    },
  },
];

/**
 * The operator's Workspace defaulting (workspace_webhook.go, Default), on CREATE and UPDATE: a managed
 * Workspace is connected through the kubeconfig Secret its managed cluster writes,
 * `forkspacer-<name>/vc-kubeconfig-<name>`, key `config`. Two things the operator's defaulter also does
 * are left out: `status.lastActivity` (the API server drops status a webhook sets on a kind with a status
 * subresource) and copying `autoHibernation` from the `from` Workspace (a live read of another object).
 * Idempotent: a Workspace already so connected is returned unchanged.
 */
export function applyWorkspaceDefaults(workspace: Workspace, request: AdmissionRequest): Workspace {
  if (workspace?.spec?.type !== "managed") return workspace;
  // Only a string name counts: the API server decodes it as one before any webhook sees it, and String()
  // throws on some objects a hostile review can hold ({"toString": false}).
  const objectName = (workspace.metadata as { name?: unknown } | undefined)?.name;
  const name = typeof objectName === "string" ? objectName : (request.name ?? "");
  const connection = {
    type: "kubeconfig" as const,
    secretReference: { name: `vc-kubeconfig-${name}`, namespace: `forkspacer-${name}`, key: "config" },
  };
  const current = workspace.spec.connection;
  if (
    current?.type === connection.type &&
    current.secretReference?.name === connection.secretReference.name &&
    current.secretReference.namespace === connection.secretReference.namespace &&
    current.secretReference.key === connection.secretReference.key
  ) {
    return workspace;
  }
  return { ...workspace, spec: { ...workspace.spec, connection } };
}
