import { isDeepStrictEqual } from "node:util";
import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, type Native, type RuleId } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import type { WorkspaceSpec } from "../../generated/workspace.js";

const immutable = (field: string) => ({
  summary: `spec.${field} changed`,
  realSystem: "its webhook refuses the change on UPDATE (CRD defaults filled in)",
  upstream:
    "forkspacer/forkspacer v0.1.24 internal/webhook/v1/workspace_webhook.go, validateWorkspaceImmutableUpdateFields",
  transition: true,
  native: { by: "crd" } as Native,
});

/** The operator's Workspace immutables, on UPDATE. */
export const workspaceUpdateRules = errorRules({
  "workspace.type-immutable": immutable("type"),
  "workspace.from-immutable": immutable("from"),
  "workspace.connection-immutable": immutable("connection"),
});

const specPath = FieldPath.root("spec");

/**
 * What the operator's webhook keeps immutable (validateWorkspaceImmutableUpdateFields): spec.type,
 * spec.from and spec.connection, compared with the CRD's defaults filled in.
 */
export function validateWorkspaceUpdate(oldSpec: WorkspaceSpec, spec: WorkspaceSpec): FieldErrorList {
  const errors: FieldErrorList = [];
  const immutable = (rule: RuleId, field: string, before: unknown, after: unknown, value: unknown) => {
    if (!isDeepStrictEqual(before, after)) {
      errors.push(
        ...byRule(rule, [fieldError.invalid(specPath.child(field), value ?? null, "field is immutable")]),
      );
    }
  };
  immutable("workspace.type-immutable", "type", typeOf(oldSpec), typeOf(spec), spec.type);
  immutable("workspace.from-immutable", "from", fromOf(oldSpec), fromOf(spec), spec.from);
  immutable(
    "workspace.connection-immutable",
    "connection",
    connectionOf(oldSpec),
    connectionOf(spec),
    spec.connection,
  );
  return errors;
}

const typeOf = (spec: WorkspaceSpec) => spec.type ?? "kubernetes";

function fromOf(spec: WorkspaceSpec) {
  const from = spec.from;
  return from && { ...from, namespace: from.namespace ?? "default", migrateData: from.migrateData ?? false };
}

function connectionOf(spec: WorkspaceSpec) {
  const connection = spec.connection ?? { type: "in-cluster" };
  const secret = connection.secretReference;
  return {
    type: connection.type ?? "in-cluster",
    secretReference: secret && {
      name: secret.name,
      namespace: secret.namespace ?? "default",
      key: secret.key ?? "kubeconfig",
    },
  };
}
