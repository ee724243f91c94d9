import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { dns1123LabelProblems } from "../../validation/names.js";

/** The prefix of what the operator names after a managed Workspace: its namespace and Helm release. */
const prefix = "forkspacer-";
/** Helm's longest release name (helm.sh/helm/v3 pkg/chartutil ValidateReleaseName). */
const helmReleaseMaxLength = 53;
/** Helm's release name pattern; `forkspacer-` + a DNS-1123 label always matches it. */
const helmReleasePattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

const managed = "has(object.spec) && has(object.spec.type) && object.spec.type == 'managed'";

export const managedClusterRules = errorRules({
  "workspace.managed-name": {
    summary:
      "a managed Workspace whose name makes a namespace (forkspacer-<name>) or Helm release (forkspacer-<name>) that cannot exist",
    realSystem:
      "the operator creates the namespace forkspacer-<name> (the API server refuses a name that is no DNS-1123 label) and installs the Helm release forkspacer-<name> (Helm refuses one longer than 53): the Workspace never comes up",
    upstream:
      "forkspacer/forkspacer v0.1.24 internal/webhook/v1/workspace_webhook.go (the managed connection's forkspacer-<name> namespace); helm.sh/helm/v3 pkg/chartutil/validate_name.go",
    native: {
      by: "webhook",
      why: "checks names the operator derives from the object, with the API server's and Helm's messages",
      callWhen: managed,
    },
  },
});

const namePath = FieldPath.root("metadata").child("name");

/**
 * What the operator builds from a managed Workspace's name: the namespace `forkspacer-<name>`, which
 * must be a DNS-1123 label (the API server's message), and the Helm release `forkspacer-<name>`, at
 * most 53 characters (Helm's message): a name of 43 characters or more, or with a dot, fails at
 * reconcile. Other Workspaces are connected to clusters that exist already.
 */
export function validateManagedName(type: string | undefined, name: unknown): FieldErrorList {
  if (type !== "managed" || typeof name !== "string" || name === "") return [];
  const derived = `${prefix}${name}`;
  const [problem] = dns1123LabelProblems(derived);
  if (problem !== undefined) {
    const detail = `the managed cluster's namespace ${JSON.stringify(derived)} cannot be created: metadata.name: Invalid value: ${JSON.stringify(derived)}: ${problem}`;
    return byRule("workspace.managed-name", [fieldError.invalid(namePath, name, detail)]);
  }
  if (derived.length > helmReleaseMaxLength) {
    const detail = `the managed cluster's Helm release ${JSON.stringify(derived)} cannot be installed: invalid release name, must match regex ${helmReleasePattern} and the length must not be longer than ${helmReleaseMaxLength} (at most ${helmReleaseMaxLength - prefix.length} characters for a managed Workspace)`;
    return byRule("workspace.managed-name", [fieldError.invalid(namePath, name, detail)]);
  }
  return [];
}
