import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { causeType, type FieldError, formatField } from "../../src/admission/field-errors.js";
import { validate } from "../../src/admission/handler.js";
import { unchangedAt } from "../../src/admission/ratchet.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { AdmissionRequest, AdmissionResponse } from "../../src/admission/review.js";
import { addonOperatorConfigMapKind } from "../../src/resources/addon-operator-configmap/index.js";
import { createModuleKind } from "../../src/resources/module/index.js";
import { createModuleReleaseMetaKind } from "../../src/resources/modulereleasemeta/index.js";
import { moduleTemplateKind } from "../../src/resources/moduletemplate/index.js";
import { createWorkspaceKind } from "../../src/resources/workspace/index.js";
import { configMap, writeTree } from "../support/addon-modules.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { customModule, helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";

type Kube = Record<string, any>;

/**
 * One way to break an object: `rules` are the rule ids it exists to exercise (checked below: alone, it
 * makes each of them fail), `owns` the parts of the object it writes (two violations that own the same
 * part never meet in one case: their values would overwrite each other). `updateOnly`: a change that
 * only an update-only rule refuses, so it is never a legacy problem of a stored object.
 */
interface Violation {
  rules: string[];
  owns: string[];
  apply(object: Kube): void;
  updateOnly?: boolean;
  /** Parts it also takes when it is new: a channel renamed in the update is another channel. */
  alsoOwnsWhenNew?: string[];
}

interface KindCase {
  name: string;
  kind: ResourceKind;
  base(): Kube;
  violations: Violation[];
  /** The warning an admitted update carries while old problems remain, beside one per problem. */
  whileInvalid?: RegExp;
}

const v = (rules: string | string[], owns: string | string[], apply: (o: Kube) => void): Violation => ({
  rules: [rules].flat(),
  owns: [owns].flat(),
  apply,
});
const updateOnly = (rule: string, owns: string | string[], apply: (o: Kube) => void): Violation => ({
  ...v(rule, owns, apply),
  updateOnly: true,
});

/**
 * A violation that changes the release name templates read: when it is new, a legacy template that
 * reads the name renders something else, a problem of the combination that no violation alone shows
 * (so the two never meet); a legacy one, it is the name a new template is judged with.
 */
const changesReleaseName = (violation: Violation): Violation => ({
  ...violation,
  alsoOwnsWhenNew: [...(violation.alsoOwnsWhenNew ?? []), "readsReleaseName"],
});

// ---- Module: the helm Module of the tests, with one config item per config rule to break ----------

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
  v("module.schema", "permissions", (m) => {
    m.spec.custom.permissions = "workspace";
  }),
  updateOnly("module.custom-image-immutable", "image", (m) => {
    m.spec.custom.image = "my-registry/custom-app:v2.0.0";
  }),
];

// ---- Workspace ------------------------------------------------------------------------------------

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

// ---- ModuleTemplate -------------------------------------------------------------------------------

const templateViolations: Violation[] = [
  // A channel value Kyma's older CRD allowed.
  v("moduletemplate.schema", "channel", (t) => {
    t.spec.channel = "Fast-Track";
  }),
  v("moduletemplate.cluster-scoped", "annotations", (t) => {
    t.metadata.annotations = { "operator.kyma-project.io/is-cluster-scoped": "True" };
  }),
  v("moduletemplate.name-matches-spec", "name", (t) => {
    t.metadata.name = "keda-1.3.0";
  }),
  v("moduletemplate.data-api-version", "dataApiVersion", (t) => {
    t.spec.data.apiVersion = "";
  }),
  v("moduletemplate.data-kind", "dataKind", (t) => {
    t.spec.data.kind = "Keda Operator";
  }),
  v("moduletemplate.link", "link", (t) => {
    t.spec.resources[0].link = "ftp://example.com/keda-manager.yaml";
  }),
  v("moduletemplate.unique-name", "icons", (t) => {
    t.spec.info.icons.push({ name: "module-icon", link: "https://example.com/other.svg" });
  }),
  updateOnly("moduletemplate.immutable-identity", "version", (t) => {
    t.spec.version = "1.1.0";
  }),
];

// ---- ModuleReleaseMeta ----------------------------------------------------------------------------

const existingTemplates = new Set(["keda-1.1.0", "keda-1.2.0", "keda-1.3.0"]);
const releaseMetaBase = (): Kube => kedaReleaseMeta({ regular: "1.2.0", fast: "1.3.0", beta: "1.2.0" });

const releaseMetaViolations: Violation[] = [
  // A channel name shorter than today's schema allows.
  {
    ...v("modulereleasemeta.schema", "channel2Name", (m) => {
      m.spec.channels[2].channel = "be";
    }),
    alsoOwnsWhenNew: ["channel2Version"],
  },
  // The first channel: the rules read the list without it, and name the others where they are.
  {
    ...v("modulereleasemeta.schema", "channel0Name", (m) => {
      m.spec.channels[0].channel = "re";
    }),
    alsoOwnsWhenNew: ["channel0"],
  },
  v("modulereleasemeta.template-exists", "channel1", (m) => {
    m.spec.channels[1].version = "1.9.0";
  }),
  updateOnly("modulereleasemeta.channel-downgrade", "channel0", (m) => {
    m.spec.channels[0].version = "1.1.0";
  }),
  // The channel whose name breaks the schema moved down: still read, still refused.
  updateOnly("modulereleasemeta.channel-downgrade", "channel2Version", (m) => {
    m.spec.channels[2].version = "1.1.0";
  }),
];

// ---- ConfigMap/addon-operator ---------------------------------------------------------------------

const modulesDir = writeTree({
  "001-mod-a/openapi/config-values.yaml": { type: "object", properties: { param: { type: "string" } } },
  "002-mod-b/openapi/config-values.yaml": { type: "object", properties: { size: { type: "integer" } } },
  "003-mod-c/openapi/config-values.yaml": { type: "object", properties: {} },
  "004-guarded/openapi/config-values.yaml": {
    type: "object",
    properties: {
      storageClass: {
        type: "string",
        "x-deckhouse-validations": [{ expression: "self == oldSelf", message: "storageClass is immutable" }],
      },
    },
  },
  "openapi/config-values.yaml": {
    type: "object",
    properties: { project: { type: "string" }, clusterName: { type: "string" } },
  },
});

const configMapBase = (): Kube =>
  configMap({
    global: "project: p\nclusterName: c\n",
    modA: "param: x\n",
    modAEnabled: "true",
    modB: "size: 3\n",
    modBEnabled: "true",
    modCEnabled: "true",
    guarded: "storageClass: fast\n",
    guardedEnabled: "true",
  });

const configMapViolations: Violation[] = [
  v("addon-operator-configmap.data-string", "number", (c) => {
    c.data.modCMaintenance = 5;
  }),
  v("addon-operator-configmap.global-values", "global", (c) => {
    c.data.global = "project: [p\n";
  }),
  v("addon-operator-configmap.enabled-flag", "modCEnabled", (c) => {
    c.data.modCEnabled = "yes";
  }),
  v("addon-operator-configmap.maintenance-mode", "modBMaintenance", (c) => {
    c.data.modBMaintenance = "Paused";
  }),
  v("addon-operator-configmap.section-key", "badKey", (c) => {
    c.data.CertManager = "a: 1\n";
  }),
  v("addon-operator-configmap.module-values", "modA", (c) => {
    c.data.modA = "param: 5\n";
  }),
  v("addon-operator-configmap.module-values", "modB", (c) => {
    c.data.modB = "size: big\n";
  }),
  updateOnly("addon-operator-configmap.values-transition", "guarded", (c) => {
    c.data.guarded = "storageClass: slow\n";
  }),
];

// ---- the cases ------------------------------------------------------------------------------------

const workspaces = (namespace: string, name: string) =>
  namespace === "default" && ["dev-environment", "staging", "prod"].includes(name);

const cases: KindCase[] = [
  {
    name: "Module (helm)",
    kind: createModuleKind({ workspaceExists: workspaces }) as ResourceKind,
    base: moduleBase,
    violations: moduleViolations,
  },
  {
    name: "Module (custom)",
    kind: createModuleKind({ workspaceExists: workspaces }) as ResourceKind,
    base: () => customModule() as Kube,
    violations: customViolations,
  },
  {
    name: "Workspace",
    kind: createWorkspaceKind({ workspaceExists: workspaces }) as ResourceKind,
    base: workspaceBase,
    violations: workspaceViolations,
  },
  {
    name: "ModuleTemplate",
    kind: moduleTemplateKind as ResourceKind,
    base: () => kedaTemplate() as Kube,
    violations: templateViolations,
  },
  {
    name: "ModuleReleaseMeta",
    kind: createModuleReleaseMetaKind({
      moduleTemplateExists: (_namespace, name) => existingTemplates.has(name),
    }) as ResourceKind,
    base: releaseMetaBase,
    violations: releaseMetaViolations,
  },
  {
    name: "ConfigMap/addon-operator",
    kind: addonOperatorConfigMapKind({
      modulesDir,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    }) as ResourceKind,
    base: configMapBase,
    violations: configMapViolations,
    whileInvalid:
      /^addon-operator ignores the whole ConfigMap until data\.\w+ is fixed: none of this change takes effect$/,
  },
];

// ---- the oracle -----------------------------------------------------------------------------------

const request = (kind: ResourceKind, object: Kube, oldObject?: Kube): AdmissionRequest => ({
  uid: "property",
  kind: { group: kind.group, version: kind.version, kind: kind.kind },
  namespace: object.metadata?.namespace,
  name: object.metadata?.name,
  operation: oldObject ? "UPDATE" : "CREATE",
  object,
  ...(oldObject ? { oldObject } : {}),
});

const ruleOf = (message: string) => /\(rule ([^)]+)\)$/.exec(message)?.[1] ?? "";
/** A problem as a denial names it: field, cause type and rule. */
const key = (field: string, type: string, rule: string) => `${field} | ${type} | ${rule}`;
const errorKey = (error: FieldError) => key(formatField(error), causeType(error), error.rule ?? "");
const deniedKeys = (response: AdmissionResponse) =>
  new Set((response.status?.details?.causes ?? []).map((c) => key(c.field, c.reason, ruleOf(c.message))));

const withViolations = (base: Kube, violations: Violation[]): Kube => {
  const object = structuredClone(base);
  for (const violation of violations) violation.apply(object);
  return object;
};

/** An update of metadata only: what controllers do to objects they must finish with. */
const housekeepingEdit = (object: Kube, seed: number) => {
  object.metadata.labels = { ...object.metadata.labels, [`team-${seed % 3}`]: "platform" };
  object.metadata.finalizers = seed % 2 ? ["example.com/cleanup"] : [];
};

/** An object being deleted: its deletionTimestamp set (the API server never unsets it) and a finalizer. */
const beingDeleted = (object: Kube) => {
  object.metadata.deletionTimestamp = "2026-11-25T20:00:00Z";
  object.metadata.finalizers = ["example.com/cleanup"];
};
const contentOf = (object: Kube) => {
  const { metadata: _m, status: _s, ...content } = object;
  return content;
};

async function stateErrors(kind: ResourceKind, object: Kube, operation: "CREATE" | "UPDATE") {
  const base = request(kind, object);
  const verdict = await kind.validator?.validate(object, { ...base, operation, oldObject: object });
  return verdict?.errors ?? [];
}

async function transitionErrors(kind: ResourceKind, oldObject: Kube, object: Kube) {
  const verdict = await kind.validator?.validateTransition?.(
    oldObject,
    object,
    request(kind, object, oldObject),
  );
  return verdict?.errors ?? [];
}

/**
 * What an update of `stored` must be denied for, computed from each violation alone (on an object with
 * no other problem), never from the combination: the state errors of each new violation; an old one's
 * only when the update changed the value at its field (KEP-4008's rule: a missing field's value is its
 * object's); when only metadata and status changed, only those at a value the update changed (an
 * annotation set to a value a rule refuses), whether or not the object is being deleted; and every
 * update-only error.
 */
async function expectedDenial(
  kindCase: KindCase,
  legacy: Violation[],
  added: Violation[],
  stored: Kube,
  updated: Kube,
): Promise<Set<string>> {
  const { kind } = kindCase;
  const base = kindCase.base();
  const expected = new Set<string>();
  const housekeeping = isDeepStrictEqual(contentOf(stored), contentOf(updated));
  const changed = (error: FieldError) => !unchangedAt(updated, stored, error.field);
  for (const violation of added) {
    for (const error of await stateErrors(kind, withViolations(base, [violation]), "UPDATE"))
      if (!housekeeping || (!error.field.isEmpty && changed(error))) expected.add(errorKey(error));
  }
  for (const violation of legacy) {
    for (const error of await stateErrors(kind, withViolations(base, [violation]), "UPDATE"))
      if (changed(error) && !(housekeeping && error.field.isEmpty)) expected.add(errorKey(error));
  }
  for (const violation of added) {
    for (const error of await transitionErrors(kind, base, withViolations(base, [violation])))
      expected.add(errorKey(error));
  }
  return expected;
}

/** Subsets of the violations no two of which own the same part: legacy ones, then new ones. */
function scenarios(violations: Violation[]) {
  const index = fc.nat({ max: violations.length - 1 });
  return fc
    .record({
      picks: fc.array(fc.tuple(index, fc.constantFrom("legacy", "new", "new")), { maxLength: 8 }),
      housekeeping: fc.option(fc.nat({ max: 100 })),
      deleting: fc.boolean(),
    })
    .map(({ picks, housekeeping, deleting }) => {
      const owned = new Set<string>();
      const legacy: Violation[] = [];
      const added: Violation[] = [];
      for (const [i, role] of picks) {
        const violation = violations[i] as Violation;
        const parts =
          role === "new" ? [...violation.owns, ...(violation.alsoOwnsWhenNew ?? [])] : violation.owns;
        if (parts.some((part) => owned.has(part))) continue;
        if (role === "legacy" && violation.updateOnly) continue;
        for (const part of parts) owned.add(part);
        (role === "legacy" ? legacy : added).push(violation);
      }
      return { legacy, added, housekeeping, deleting };
    });
}

const describeScenario = (
  legacy: Violation[],
  added: Violation[],
  housekeeping: number | null,
  deleting: boolean,
) =>
  `legacy [${legacy.map((x) => `${x.rules}/${x.owns[0]}`)}], new [${added.map((x) => `${x.rules}/${x.owns[0]}`)}]` +
  (housekeeping === null ? "" : `, metadata/status edit ${housekeeping}`) +
  (deleting ? ", being deleted" : "");

const runs = Number(process.env.RATCHET_PROPERTY_RUNS ?? 1000);

describe("ratcheting, a property of every kind: an UPDATE is denied exactly for the problems it introduces", () => {
  for (const kindCase of cases) {
    const { kind } = kindCase;
    describe(kindCase.name, () => {
      it("the base object is valid, and each violation alone fails the rules it is there for", async () => {
        const base = kindCase.base();
        assert.deepEqual(await stateErrors(kind, base, "CREATE"), []);
        assert.deepEqual(await transitionErrors(kind, base, base), []);
        for (const violation of kindCase.violations) {
          const object = withViolations(base, [violation]);
          const found = new Set([
            ...(await stateErrors(kind, object, "CREATE")).map((error) => error.rule),
            ...(await transitionErrors(kind, base, object)).map((error) => error.rule),
          ]);
          for (const rule of violation.rules) assert.ok(found.has(rule), `${rule}: found ${[...found]}`);
          if (!violation.updateOnly) {
            // A legacy problem is a state problem: the object alone fails some state rule.
            assert.ok((await stateErrors(kind, object, "CREATE")).length > 0, violation.rules.join());
          }
        }
      });

      it("labels, finalizers, annotations of an object with every legacy problem at once: admitted", async () => {
        const owned = new Set<string>();
        const legacy = kindCase.violations.filter((violation) => {
          if (violation.updateOnly || violation.owns.some((part) => owned.has(part))) return false;
          for (const part of violation.owns) owned.add(part);
          return true;
        });
        const stored = withViolations(kindCase.base(), legacy);
        for (const edit of [
          (o: Kube) => Object.assign(o.metadata, { labels: { ...o.metadata.labels, team: "platform" } }),
          (o: Kube) => Object.assign(o.metadata, { finalizers: ["example.com/cleanup"] }),
          (o: Kube) =>
            Object.assign(o.metadata, {
              annotations: { ...o.metadata.annotations, note: "x" },
              deletionTimestamp: "2026-11-25T20:00:00Z",
            }),
        ]) {
          const updated = structuredClone(stored);
          edit(updated);
          const response = await validate(kind, request(kind, updated, stored));
          assert.equal(response.allowed, true, response.status?.message);
          assert.ok((response.warnings ?? []).length >= legacy.length, JSON.stringify(response.warnings));
        }
      });

      it(`${runs} random updates: denied ⇔ something introduced, naming exactly what was`, async () => {
        await fc.assert(
          fc.asyncProperty(
            scenarios(kindCase.violations),
            async ({ legacy, added, housekeeping, deleting }) => {
              const base = kindCase.base();
              const stored = withViolations(base, legacy);
              if (deleting) beingDeleted(stored);
              const updated = withViolations(stored, added);
              if (housekeeping !== null) housekeepingEdit(updated, housekeeping);
              const response = await validate(kind, request(kind, updated, stored));
              const expected = await expectedDenial(kindCase, legacy, added, stored, updated);
              const what = describeScenario(legacy, added, housekeeping, deleting);
              assert.equal(response.allowed, expected.size === 0, `${what}: ${response.status?.message}`);
              assert.deepEqual([...deniedKeys(response)].sort(), [...expected].sort(), what);
              // Every old problem left as it was is still shown.
              let remaining = 0;
              for (const violation of legacy) {
                for (const error of await stateErrors(kind, withViolations(base, [violation]), "UPDATE")) {
                  if (!unchangedAt(updated, stored, error.field)) continue;
                  remaining++;
                  const shown = `already invalid before this update: ${formatField(error)}`;
                  assert.ok(
                    response.warnings?.some((w) => w.startsWith(shown)),
                    `${what}: ${shown} in ${JSON.stringify(response.warnings)}`,
                  );
                }
              }
              if (kindCase.whileInvalid) {
                const said = response.warnings?.some((w) => kindCase.whileInvalid?.test(w)) ?? false;
                assert.equal(said, remaining > 0, `${what}: ${JSON.stringify(response.warnings)}`);
              }
            },
          ),
          { numRuns: runs },
        );
      });
    });
  }

  it("every rule id of every kind has a violation that exercises it", () => {
    const byKind = new Map<ResourceKind["kind"], Set<string>>();
    for (const kindCase of cases) {
      const covered = byKind.get(kindCase.kind.kind) ?? new Set<string>();
      for (const violation of kindCase.violations) for (const rule of violation.rules) covered.add(rule);
      byKind.set(kindCase.kind.kind, covered);
    }
    const missing = cases.flatMap((kindCase) =>
      (kindCase.kind.rules ?? []).filter((rule) => !byKind.get(kindCase.kind.kind)?.has(rule)),
    );
    assert.deepEqual([...new Set(missing)], [], "rule ids without a violation generator");
  });
});
