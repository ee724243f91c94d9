import type { KubeObject } from "./fake-kube-api.js";

/** The Workspace CRD as far as an API server needs it to serve workspaces.batch.forkspacer.com. */
export const workspaceCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "workspaces.batch.forkspacer.com" },
  spec: {
    group: "batch.forkspacer.com",
    names: {
      kind: "Workspace",
      listKind: "WorkspaceList",
      plural: "workspaces",
      singular: "workspace",
      shortNames: ["ws"],
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

/** The spec's example Workspace, in another namespace or name when asked. */
export function workspace(name = "dev-environment", namespace = "default"): KubeObject {
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Workspace",
    metadata: { name, namespace },
    spec: { type: "kubernetes", hibernated: false, connection: { type: "local" } },
  };
}
