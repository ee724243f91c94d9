import { byRule, fieldError } from "../../admission/field-errors.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import { errorRules, type IdsOf } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { present } from "../../cel/policy-cel.js";
import type { Workspace, WorkspaceSpec } from "../../generated/workspace.js";
import { defineKind, type GateRuleIds } from "../define-kind.js";
import type { WorkspaceLookup } from "../lookups.js";
import { applyWorkspaceDefaults } from "./defaults.js";
import { managedClusterRules, validateManagedName } from "./managed-cluster.js";
import { validateWorkspaceSpec, workspaceSpecRules } from "./spec-rules.js";
import { validateWorkspaceUpdate, workspaceUpdateRules } from "./update-rules.js";

/** On CREATE, the Workspace a fork copies exists (with cluster access). */
const fromRules = errorRules({
  "workspace.from": {
    summary: "spec.from names a Workspace that does not exist (with cluster access)",
    realSystem: "its webhook refuses it on CREATE only",
    upstream:
      "forkspacer/forkspacer v0.1.24 internal/webhook/v1/workspace_webhook.go, ValidateCreate, validateWorkspaceFromReference",
    native: {
      by: "webhook",
      why: "a lookup of another object (the Workspace): a policy sees only the object under review",
      callWhen: `request.operation == 'CREATE' && ${present("object.spec.from")}`,
    },
  },
});

const workspaceRules = [...workspaceSpecRules, ...managedClusterRules, ...fromRules, ...workspaceUpdateRules];

// The kind's rule ids, so that its emit sites accept only these (src/admission/rule-catalogue.ts).
declare module "../../admission/rule-catalogue.js" {
  interface DeclaredRuleIds extends IdsOf<typeof workspaceRules>, GateRuleIds<"workspace"> {}
}

export interface WorkspaceKindDependencies {
  /** Without it, spec.from is not checked (no cluster to ask). */
  workspaceExists?: WorkspaceLookup;
}

/**
 * The Workspace kind, served on the operator's own paths so that its Workspace webhooks can point at
 * this server in replace mode: the operator's defaulting and its validation, on CREATE the `from`
 * Workspace must exist (as the operator checks it only then), immutables on UPDATE.
 */
export function createWorkspaceKind(dependencies: WorkspaceKindDependencies = {}): ResourceKind {
  const { workspaceExists } = dependencies;
  return defineKind<Workspace, WorkspaceSpec>({
    schema: "workspace",
    schemaUpstream:
      "forkspacer/forkspacer v0.1.24 crds/batch.forkspacer.com_workspaces.yaml; schemas/workspace.yaml",
    schemaEnforcement: { why: "the CRD's structural schema: ours or the operator's, the same" },
    rules: workspaceRules,
    state: (workspace, { request, budget }) => {
      const errors = validateWorkspaceSpec(workspace.spec, budget);
      errors.push(...validateManagedName(workspace.spec.type, workspace.metadata?.name ?? request.name));
      const from = workspace.spec.from;
      if (request.operation === "CREATE" && from && workspaceExists) {
        const namespace = from.namespace || "default";
        if (!workspaceExists(namespace, from.name)) {
          const path = FieldPath.root("spec").child("from");
          errors.push(...byRule("workspace.from", [fieldError.notFound(path, `${namespace}/${from.name}`)]));
        }
      }
      return { errors, warnings: [] } satisfies Verdict;
    },
    transition: (before, after) => ({
      errors: validateWorkspaceUpdate(before ?? ({} as WorkspaceSpec), after ?? ({} as WorkspaceSpec)),
      warnings: [],
    }),
    defaulter: { applyDefaults: (workspace, request) => applyWorkspaceDefaults(workspace, request) },
  });
}

export const workspaceKind: ResourceKind = createWorkspaceKind();
