import { customModule, helmModule } from "../../support/modules.js";
import {
  type Kube,
  type RatchetGenerators,
  updateOnly,
  type Violation,
  v,
} from "../../support/ratchet-generators.js";

/**
 * A violation that changes the release name templates read: when it is new, a legacy template that
 * reads the name renders something else, a problem of the combination that no violation alone shows
 * (so the two never meet); a legacy one, it is the name a new template is judged with.
 */
const changesReleaseName = (violation: Violation): Violation => ({
  ...violation,
  alsoOwnsWhenNew: [...(violation.alsoOwnsWhenNew ?? []), "readsReleaseName"],
});

// The helm Module of the tests, with one config item per config rule to break.

const slots = [
  { name: "A", alias: "slotA", integer: { default: 1, min: 0, max: 5 } },
  { name: "B", alias: "slotB", string: { default: "x" } },
  { name: "C", alias: "slotC", option: { default: "a", values: ["a", "b"] } },
  { name: "D", alias: "slotD", integer: { default: 1 } },
  { name: "E", alias: "slotE", string: { default: "e" } },
  { name: "F", alias: "slotF", boolean: { default: false } },
  { name: "G", alias: "slotG", boolean: { default: false } },
  { name: "H", alias: "slotH", string: { default: "h", required: true } },
  { name: "I", alias: "slotI", string: { default: "i", editable: false } },
  { name: "J", alias: "slotJ", integer: { default: 1, min: 0, max: 5 } },
  { name: "K", alias: "slotK", integer: { default: 1 } },
  { name: "L", alias: "slotL", multipleOptions: { default: ["a"], values: ["a", "b"] } },
  { name: "M", alias: "slotM", integer: { default: 1 } },
];
const slot = (alias: string) => 5 + slots.findIndex((item) => item.alias === alias);

function moduleBase(): Kube {
  const module = helmModule() as Kube;
  module.config.push(...structuredClone(slots));
  Object.assign(module.spec.config, { slotH: "h", slotJ: 1, slotK: 2 });
  module.spec.helm.values.push({ raw: { t1: "plain", t2: "plain" } });
  return module;
}

const helmParts = [
  "releaseName",
  "chart",
  "repoUrl",
  "existingRelease",
  "t1",
  "t2",
  "t3",
  "t4",
  "chartVersion",
  "namespace",
  "outputs",
];

const moduleViolations: Violation[] = [
  // A release name the operator generated, <namespace>-<11 characters>, in a long namespace.
  changesReleaseName(
    v("module.schema", "releaseName", (m) => {
      m.spec.helm.releaseName = `${"n".repeat(48)}-abcdefghijk`;
    }),
  ),
  // A chart repo stored with an empty url (the operator reads the repo as set all the same).
  v("module.schema", "repoUrl", (m) => {
    m.spec.helm.chart.repo.url = "";
  }),
  v("module.schema", "hibernated", (m) => {
    m.spec.hibernated = "yes";
  }),
  changesReleaseName(
    v("module.release-name", "releaseName", (m) => {
      m.spec.helm.releaseName = "Redis-Main";
    }),
  ),
  v("module.source", "custom", (m) => {
    m.spec.custom = { image: "example.com/app:1" };
  }),
  v("module.chart-source", "chart", (m) => {
    m.spec.helm.chart.git = { repo: "https://example.com/charts.git", path: "redis", revision: "main" };
  }),
  changesReleaseName(
    v("module.existing-release-name", "existingRelease", (m) => {
      m.spec.helm.existingRelease = { name: "Bad_Name", namespace: "data" };
    }),
  ),
  v("module.config-duplicate-alias", "slotG", (m) => {
    m.config[slot("slotG")].alias = "slotF";
  }),
  v("module.config-type", "slotD", (m) => {
    m.config[slot("slotD")].boolean = { default: false };
  }),
  v("module.config-required-editable", "slotE", (m) => {
    Object.assign(m.config[slot("slotE")].string, { required: true, editable: false });
  }),
  v("module.config-regex", "slotB", (m) => {
    m.config[slot("slotB")].string.regex = "(?<=x)y";
  }),
  v("module.config-min-max", "slotA", (m) => {
    Object.assign(m.config[slot("slotA")].integer, { min: 4, max: 2, default: 3 });
  }),
  v("module.config-default", "slotC", (m) => {
    m.config[slot("slotC")].option.default = "z";
  }),
  v("module.config-required", "slotH", (m) => {
    delete m.spec.config.slotH;
  }),
  v("module.config-not-editable", "slotI", (m) => {
    m.spec.config.slotI = "set";
  }),
  v("module.config-value", "slotJ", (m) => {
    m.spec.config.slotJ = 99;
  }),
  v("module.config-whole-number", "slotK", (m) => {
    m.spec.config.slotK = 2.5;
  }),
  v("module.multiple-options-value", "slotL", (m) => {
    m.spec.config.slotL = ["a"];
  }),
  v("module.template-syntax", "t1", (m) => {
    m.spec.helm.values[1].raw.t1 = "{{ if }}";
  }),
  v("module.template-function", "t2", (m) => {
    m.spec.helm.values[1].raw.t2 = "{{ undefinedFunction 1 }}";
  }),
  v("module.template-json-type", "chartVersion", (m) => {
    m.spec.helm.chart.repo.version = "{{ .config.replicas }}";
  }),
  v("module.template-exec", "t3", (m) => {
    m.spec.helm.values[1].raw.t3 = '{{ template "labels" . }}';
  }),
  // Templates that read the release name, judged with the name the operator passes, a legacy one too.
  v("module.template-exec", ["t4", "readsReleaseName"], (m) => {
    m.spec.helm.values[1].raw.t4 = "{{ index .releaseName 99 }}";
  }),
  v("module.template-json-type", ["chartVersion", "readsReleaseName"], (m) => {
    m.spec.helm.chart.repo.version = "{{ len .releaseName }}";
  }),
  // The chart's source is git in both (so the repo's version goes too): scp-like URLs fail Go's
  // url.Parse, `auth: {}` the operator.
  v("module.git-url", ["chart", "chartVersion", "repoUrl"], (m) => {
    m.spec.helm.chart = { git: { repo: "git@github.com:org/charts.git", path: "redis" } };
  }),
  v("module.git-auth", ["chart", "chartVersion", "repoUrl"], (m) => {
    m.spec.helm.chart = { git: { repo: "https://github.com/org/charts", path: "redis", auth: {} } };
  }),
  v("module.git-revision", ["chart", "chartVersion", "repoUrl"], (m) => {
    m.spec.helm.chart = { git: { repo: "https://github.com/org/charts", path: "redis", revision: "" } };
  }),
  v("module.chart-repo", ["chart", "chartVersion", "repoUrl"], (m) => {
    m.spec.helm.chart = { repo: { url: '{{ "null" }}', chart: "redis" } };
  }),
  // The namespace is immutable unless existingRelease is set (then the update's immutability errors
  // depend on it too): as a new violation it owns existingRelease as well.
  {
    ...v("module.helm-namespace", "namespace", (m) => {
      m.spec.helm.namespace = "Data";
    }),
    alsoOwnsWhenNew: ["existingRelease"],
  },
  changesReleaseName(
    v("module.existing-release-namespace", "existingRelease", (m) => {
      m.spec.helm.existingRelease = { name: "redis", namespace: "Data" };
    }),
  ),
  v("module.config-integer-range", "slotM", (m) => {
    m.config[slot("slotM")].integer.max = 2 ** 64;
  }),
  changesReleaseName(
    v("module.existing-release-template", "existingRelease", (m) => {
      m.spec.helm.existingRelease = { name: "redis", namespace: "{{ .config.env }}-apps" };
    }),
  ),
  v("module.workspace-exists", "workspace", (m) => {
    m.spec.workspace.name = "gone";
  }),
  updateOnly("module.workspace-immutable", "workspace", (m) => {
    m.spec.workspace.name = "staging";
  }),
  updateOnly("module.config-immutable", "host", (m) => {
    m.spec.config.host = "other.local";
  }),
  // helm → custom: every part of spec.helm goes with it.
  updateOnly("module.source-immutable", [...helmParts, "custom"], (m) => {
    m.spec.custom = { image: "example.com/app:1" };
    delete m.spec.helm;
  }),
  changesReleaseName(
    updateOnly("module.release-name-immutable", "releaseName", (m) => {
      m.spec.helm.releaseName = "redis-other";
    }),
  ),
  changesReleaseName(
    updateOnly("module.existing-release-immutable", "existingRelease", (m) => {
      m.spec.helm.existingRelease = { name: "redis", namespace: "data" };
    }),
  ),
  // Compared only when neither side adopts an existing release.
  updateOnly("module.helm-namespace-immutable", ["namespace", "existingRelease"], (m) => {
    m.spec.helm.namespace = "other";
  }),
  updateOnly("module.outputs-immutable", "outputs", (m) => {
    m.spec.helm.outputs = [{ name: "host", value: "redis.local" }];
  }),
];
const customViolations: Violation[] = [
  v("module.custom-image", "image", (m) => {
    m.spec.custom.image = " ";
  }),
  v("module.custom-image-whitespace", "image", (m) => {
    m.spec.custom.image = "my-registry/custom-app:v1.0.0 ";
  }),
  v("module.schema", "permissions", (m) => {
    m.spec.custom.permissions = "workspace";
  }),
  updateOnly("module.custom-image-immutable", "image", (m) => {
    m.spec.custom.image = "my-registry/custom-app:v2.0.0";
  }),
];

/** The Workspaces that exist in the lookups' cluster. */
const workspaces = (namespace: string, name: string) =>
  namespace === "default" && ["dev-environment", "staging", "prod"].includes(name);

/** The Module, helm and custom: every error rule of the kind is broken by some violation. */
export const ratchetGenerators: RatchetGenerators = {
  dependencies: { workspaceExists: workspaces },
  cases: [
    { name: "Module (helm)", base: moduleBase, violations: moduleViolations },
    { name: "Module (custom)", base: () => customModule() as Kube, violations: customViolations },
  ],
};
