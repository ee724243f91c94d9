import { readFileSync } from "node:fs";
import { byRule, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import type { Workspace, WorkspaceSpec } from "../../generated/workspace.js";
import { behindStructureGate, onReadableSpecs } from "../../validation/readable.js";
import { structureChecker } from "../../validation/structure.js";
import { applyWorkspaceDefaults } from "./defaults.js";
import { validateWorkspaceSpec } from "./spec-rules.js";
import { validateWorkspaceUpdate } from "./update-rules.js";

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemaUrl = new URL("../../../schemas/dist/workspace.schema.json", import.meta.url);
const checkStructure = structureChecker(JSON.parse(readFileSync(schemaUrl, "utf8")));

/** Every rule id the Workspace's errors carry (`serve --rule-action` keys). */
const workspaceRules = [
  "workspace.schema",
  "workspace.schedule",
  "workspace.wake-schedule",
  "workspace.kubeconfig-secret",
  "workspace.from",
  "workspace.type-immutable",
  "workspace.from-immutable",
  "workspace.connection-immutable",
] as const;

/** Whether a Workspace exists; answered from the informer cache the Module kind also uses. */
export type WorkspaceLookup = (namespace: string, name: string) => boolean;

export interface WorkspaceKindDependencies {
  /** Without it, spec.from is not checked (no cluster to ask). */
  workspaceExists?: WorkspaceLookup;
}

/**
 * The Workspace kind, served on the operator's own paths so that its Workspace webhooks can point at
 * this server in replace mode: the operator's defaulting and its validation, on CREATE the `from`
 * Workspace must exist (as the operator checks it only then), immutables on UPDATE.
 */
export function createWorkspaceKind(dependencies: WorkspaceKindDependencies = {}): ResourceKind<Workspace> {
  const { workspaceExists } = dependencies;
  return {
    group: "batch.forkspacer.com",
    version: "v1",
    kind: "Workspace",
    rules: workspaceRules,
    warningRules: ["workspace.unknown-field"],
    validator: {
      validate: (object, request, _focus, budget) =>
        behindStructureGate<Workspace>(
          checkStructure,
          { schema: "workspace.schema", unknownField: "workspace.unknown-field" },
          object,
          (workspace) => {
            const errors = validateWorkspaceSpec(workspace.spec);
            const from = workspace.spec.from;
            if (request.operation === "CREATE" && from && workspaceExists) {
              const namespace = from.namespace || "default";
              if (!workspaceExists(namespace, from.name)) {
                const path = FieldPath.root("spec").child("from");
                errors.push(
                  ...byRule("workspace.from", [fieldError.notFound(path, `${namespace}/${from.name}`)]),
                );
              }
            }
            return { errors, warnings: [] } satisfies Verdict;
          },
          budget,
        ),
      // Never skipped: each side is read as far as its values have the right type.
      validateTransition: (oldObject, object, _request, budget) =>
        onReadableSpecs<WorkspaceSpec>(
          checkStructure,
          oldObject,
          object,
          (before, after) => ({
            errors: validateWorkspaceUpdate(before ?? ({} as WorkspaceSpec), after ?? ({} as WorkspaceSpec)),
            warnings: [],
          }),
          budget,
        ),
    },
    defaulter: { applyDefaults: (workspace, request) => applyWorkspaceDefaults(workspace, request) },
  };
}

export const workspaceKind: ResourceKind<Workspace> = createWorkspaceKind();
