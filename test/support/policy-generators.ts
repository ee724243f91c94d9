import fc from "fast-check";
import { kedaReleaseMeta } from "./modulereleasemetas.js";
import { customModule, helmModule } from "./modules.js";
import { kedaTemplate } from "./moduletemplates.js";
import type { PolicyCase } from "./policy-cases.js";
import { workspace } from "./workspaces.js";

type Obj = Record<string, any>;
/** One way to change an object; each edit of a kind offers several, applied in place. */
type Edit = readonly ((object: Obj) => void)[];

const set = (path: string, value: unknown) => (object: Obj) => {
  const steps = path.split(".");
  const last = steps.pop() as string;
  let at = object;
  for (const step of steps) {
    at[step] ??= {};
    at = at[step];
  }
  if (value === undefined) delete at[last];
  else at[last] = structuredClone(value);
};
const values = (path: string, ...options: unknown[]): Edit => options.map((value) => set(path, value));

/**
 * Edits of a Module that reach every rule the API server can enforce: each one several values, from
 * valid to wrong in every way a rule names, and the edge values where CEL and JavaScript could part.
 */
const moduleEdits: Edit[] = [
  values(
    "spec.helm.releaseName",
    undefined,
    "redis-main",
    "Redis",
    "1abc",
    "a",
    "ab-",
    "a.b",
    "r".repeat(53),
  ),
  values(
    "spec.helm.existingRelease",
    undefined,
    { name: "redis" },
    { name: "Bad_Name" },
    { name: "{{ .config.name }}" },
    { name: "ok", namespace: "{{ .ns }}" },
    { name: "a".repeat(54) },
    { name: "a.b-c", namespace: "other" },
  ),
  values(
    "spec.helm.chart",
    { repo: { url: "https://charts.example.com", chart: "redis", version: "1.0.0" } },
    { repo: { url: "https://charts.example.com", chart: "redis" } },
    { repo: { url: "https://charts.example.com", chart: "redis", version: "" } },
    { git: { repo: "https://github.com/org/charts", auth: {} } },
    { git: { repo: "https://github.com/org/charts", auth: { httpsSecretRef: { name: "git" } } } },
    { configMap: { name: "chart" } },
    { repo: { url: "https://x", chart: "c" }, configMap: { name: "chart" } },
    { git: { repo: "https://x" }, configMap: { name: "chart" } },
    {},
  ),
  values("spec.helm.namespace", undefined, "default", "other", "{{ .config.host }}"),
  values(
    "spec.helm.outputs",
    undefined,
    [],
    [{ name: "host", value: "redis.local" }],
    [{ name: "secret", valueFrom: { secret: { name: "s", key: "k" } } }],
    [{ name: "secret", valueFrom: { secret: { name: "s", key: "k", namespace: "default" } } }],
  ),
  values(
    "spec.custom",
    undefined,
    { image: "x" },
    { image: "" },
    { image: "  \t" },
    { image: "\u00a0" },
    { image: "x", permissions: ["controller"] },
    { image: "y", permissions: ["workspace", "controller"] },
  ),
  [...values("spec.helm", undefined), () => {}],
  values(
    "spec.workspace",
    { name: "dev-environment" },
    { name: "dev-environment", namespace: "default" },
    { name: "other" },
    { name: "dev-environment", namespace: "x" },
  ),
  values(
    "spec.config",
    undefined,
    {},
    { replicas: 3, version: "21.2.7", host: "redis.local", metrics: true },
    { replicas: 2.5 },
    { replicas: 3.0 },
    { replicas: "3" },
    { replicas: 7 },
    { replicas: -1 },
    { replicas: 1e19 },
    { replicas: 2 ** 60 },
    { version: "bad" },
    { host: "UPPER" },
    { metrics: "yes" },
    { features: ["logging"] },
    { unknown: 1 },
    { replicas: null },
  ),
  values(
    "config",
    undefined,
    [],
    [
      { name: "A", alias: "a", string: {} },
      { name: "B", alias: "a", integer: {} },
    ],
    [{ name: "A", alias: "a" }],
    [{ name: "A", alias: "a", string: {}, boolean: {} }],
    [{ name: "A", alias: "a", integer: { min: 5, max: 1 } }],
    [{ name: "A", alias: "a", integer: { default: 9, max: 5 } }],
    [{ name: "A", alias: "a", integer: { default: 0, min: 1 } }],
    [{ name: "A", alias: "a", string: { default: "Up", regex: "^[a-z]+$" } }],
    [{ name: "A", alias: "a", string: { default: "", regex: "^[a-z]+$" } }],
    [{ name: "A", alias: "a", string: { regex: "(" } }],
    [{ name: "A", alias: "a", option: { default: "z", values: ["x", "y"] } }],
    [{ name: "A", alias: "a", option: { values: ["x", "y"] } }],
    [{ name: "A", alias: "a", multipleOptions: { default: ["x", "x"], values: ["x", "y"] } }],
    [{ name: "A", alias: "a", multipleOptions: { values: ["x"], min: 1, max: 3 } }],
    [{ name: "A", alias: "a", boolean: { required: true, editable: false } }],
    [{ name: "A", alias: "replicas", integer: { required: true } }],
    [{ name: "A", alias: "host", string: { editable: false } }],
  ),
];

const workspaceEdits: Edit[] = [
  values("spec.type", undefined, "kubernetes", "managed"),
  values(
    "spec.connection",
    undefined,
    { type: "local" },
    { type: "in-cluster" },
    { type: "kubeconfig" },
    { type: "kubeconfig", secretReference: { name: "kc" } },
    { type: "kubeconfig", secretReference: { name: "kc", namespace: "other", key: "config" } },
  ),
  values("spec.from", undefined, { name: "base" }, { name: "base", namespace: "other", migrateData: true }),
  values(
    "spec.autoHibernation",
    undefined,
    { enabled: true, schedule: "0 20 * * *" },
    { enabled: true, schedule: "0 20 * * *", wakeSchedule: "0 8 * * *" },
  ),
  values("spec.hibernated", false, true),
];

const templateEdits: Edit[] = [
  values(
    "metadata.name",
    "keda-1.2.0",
    "keda-1.3.0",
    "other-1.2.0",
    "keda",
    "keda-one-1.2.0",
    "keda-1.2.0-rc1",
  ),
  values("spec.moduleName", undefined, "", "keda", "other", "keda-one"),
  values("spec.version", undefined, "", "1.2.0", "1.3.0", "1.2.0-rc1"),
  values(
    "metadata.annotations",
    undefined,
    { "operator.kyma-project.io/is-cluster-scoped": "true" },
    { "operator.kyma-project.io/is-cluster-scoped": "True" },
    { "operator.kyma-project.io/is-cluster-scoped": "yes" },
  ),
  values(
    "metadata.labels",
    undefined,
    { "operator.kyma-project.io/beta": "TRUE" },
    { "operator.kyma-project.io/internal": "yes" },
    { "operator.kyma-project.io/module-name": "other" },
    { "operator.kyma-project.io/module-name": "keda", "operator.kyma-project.io/beta": "false" },
  ),
  values(
    "spec.data",
    undefined,
    { apiVersion: "v1", kind: "ConfigMap" },
    { apiVersion: "operator.kyma-project.io/v1alpha1", kind: "Keda", status: {} },
    { apiVersion: "Operator/V1", kind: "Keda" },
    { apiVersion: "a/b/c", kind: "Keda" },
    { apiVersion: "/v1", kind: "Keda" },
    { apiVersion: "v1", kind: "bad kind" },
    { apiVersion: "v1", kind: "K".repeat(64) },
  ),
  values("spec.channel", undefined, "", "regular"),
  values(
    "spec.customStateCheck",
    undefined,
    [],
    [{ jsonPath: "status.health", mappedState: "Ready", value: "green" }],
  ),
  values("spec.mandatory", undefined, false, true),
  values(
    "spec.info",
    undefined,
    { repository: "https://github.com/kyma-project/keda-manager", documentation: "https://kyma-project.io" },
    { repository: "/relative", documentation: "https://x.io" },
  ),
];

const releaseMetaEdits: Edit[] = [
  values("metadata.name", "keda", "other"),
  values("spec.moduleName", "keda", "", "other"),
  values("spec.ocmComponentName", undefined, "", "kyma-project.io/module/keda"),
  values(
    "spec.channels",
    [{ channel: "regular", version: "1.2.0" }],
    [{ channel: "regular", version: "1.1.9" }],
    [{ channel: "regular", version: "1.2.0-rc1" }],
    [{ channel: "regular", version: "1.2.0-beta" }],
    [{ channel: "regular", version: "1.2.0+build" }],
    [{ channel: "regular", version: "" }],
    [{ channel: "regular", version: "1.10.0" }],
    [{ channel: "regular", version: "99999999999999999999.0.0" }],
    [
      { channel: "regular", version: "1.2.0" },
      { channel: "fast", version: "1.3.0" },
    ],
    [{ channel: "fast", version: "1.2.1" }],
  ),
  values("spec.mandatory", undefined, { version: "1.2.0" }, { version: "1.0.0" }),
];

/** An object of a kind with some of its edits applied, as fast-check draws them. */
function edited(base: () => Obj, edits: Edit[]): fc.Arbitrary<Obj> {
  return fc
    .tuple(...edits.map((edit) => fc.option(fc.nat({ max: edit.length - 1 }), { freq: 2 })))
    .map((choices) => {
      const object = base();
      choices.forEach((choice, i) => {
        if (choice !== null) edits[i]?.[choice]?.(object);
      });
      return object;
    });
}

const kinds: { name: string; base: () => Obj; edits: Edit[] }[] = [
  { name: "helm Module", base: () => helmModule() as Obj, edits: moduleEdits },
  { name: "custom Module", base: () => customModule() as Obj, edits: moduleEdits },
  { name: "Workspace", base: () => workspace() as Obj, edits: workspaceEdits },
  { name: "ModuleTemplate", base: () => kedaTemplate() as Obj, edits: templateEdits },
  {
    name: "ModuleReleaseMeta",
    base: () => {
      const meta = kedaReleaseMeta() as Obj;
      delete meta.spec.channels;
      meta.spec.channels = [{ channel: "regular", version: "1.2.0" }];
      return meta;
    },
    edits: releaseMetaEdits,
  },
];

/**
 * Requests of every kind: a CREATE of an edited object, and an UPDATE from one edited object to another
 * (of the same base, so that the update touches a few fields and keeps others, as real updates do).
 */
export function generatedCases(): fc.Arbitrary<PolicyCase> {
  return fc.oneof(
    ...kinds.map(({ name, base, edits }) =>
      fc
        .tuple(edited(base, edits), edited(base, edits), fc.boolean())
        .map(([object, oldObject, update]): PolicyCase => {
          if (!update) return { name: `generated ${name} CREATE`, operation: "CREATE", object };
          // An update never renames: the old object has the new one's name and namespace.
          oldObject.metadata = {
            ...oldObject.metadata,
            name: object.metadata.name,
            namespace: object.metadata.namespace,
          };
          return { name: `generated ${name} UPDATE`, operation: "UPDATE", object, oldObject };
        }),
    ),
  );
}
