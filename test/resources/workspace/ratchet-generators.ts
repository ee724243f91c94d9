import {
  type Kube,
  type RatchetGenerators,
  updateOnly,
  type Violation,
  v,
} from "../../support/ratchet-generators.js";

const workspaceBase = (): Kube => ({
  apiVersion: "batch.forkspacer.com/v1",
  kind: "Workspace",
  metadata: { name: "dev", namespace: "default" },
  spec: {
    type: "kubernetes",
    connection: { type: "in-cluster" },
    autoHibernation: { enabled: true, schedule: "0 22 * * *", wakeSchedule: "0 6 * * *" },
  },
});

const workspaceViolations: Violation[] = [
  // A replace-mode Workspace forked from one whose name the old CRD did not bound.
  v("workspace.schema", "from", (w) => {
    w.spec.from = { name: "w".repeat(300), namespace: "default" };
  }),
  v("workspace.schedule", "hibernation", (w) => {
    w.spec.autoHibernation.schedule = "0 25 * * *";
  }),
  v("workspace.wake-schedule", "hibernation", (w) => {
    w.spec.autoHibernation.wakeSchedule = "0 22 * * *";
  }),
  v("workspace.kubeconfig-secret", ["connection", "type"], (w) => {
    w.spec.connection = { type: "kubeconfig" };
  }),
  // A managed Workspace stored before its name was checked: its cluster's namespace cannot exist.
  v("workspace.managed-name", ["type", "name"], (w) => {
    w.spec.type = "managed";
    w.metadata.name = "team.a";
  }),
  // Checked on CREATE only, as the operator does: on UPDATE only the change of spec.from is refused.
  v("workspace.from", "from", (w) => {
    w.spec.from = { name: "gone", namespace: "default" };
  }),
  updateOnly("workspace.type-immutable", "type", (w) => {
    w.spec.type = "managed";
  }),
  updateOnly("workspace.from-immutable", "from", (w) => {
    w.spec.from = { name: "prod", namespace: "default" };
  }),
  updateOnly("workspace.connection-immutable", "connection", (w) => {
    w.spec.connection = { type: "kubeconfig", secretReference: { name: "kc", namespace: "default" } };
  }),
];

/** The Workspaces that exist in the lookups' cluster. */
const workspaces = (namespace: string, name: string) =>
  namespace === "default" && ["dev-environment", "staging", "prod"].includes(name);

export const ratchetGenerators: RatchetGenerators = {
  dependencies: { workspaceExists: workspaces },
  cases: [{ name: "Workspace", base: workspaceBase, violations: workspaceViolations }],
};
