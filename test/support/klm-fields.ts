import { kedaReleaseMeta } from "./modulereleasemetas.js";
import { kedaTemplate } from "./moduletemplates.js";

/**
 * Every field of ModuleTemplate and ModuleReleaseMeta that lifecycle-manager reads (and, apart, those it
 * does not), each with cases: what lifecycle-manager does with the value (../shared/spec/
 * kyma-lifecycle-manager-behaviour.md, docs/kyma.md's reading of its code at c5b83f1) and what `serve`
 * and `validate` must answer. The standard: deny only what lifecycle-manager certainly fails on (or
 * what a rule declares stricter, with its reason), warn on what may go wrong, never deny what it accepts.
 */
export type KlmDoes = "accepts" | "may fail" | "fails" | "not read";

export type Expected =
  | { verdict: "admit" }
  | { verdict: "warn"; rule: string; words: string }
  /** `rule: "crd"`: Kyma's CRD refuses it, the webhook is never called. */
  | { verdict: "deny"; rule: string; words: string };

export interface KlmCase {
  kind: "ModuleTemplate" | "ModuleReleaseMeta";
  field: string;
  /** What lifecycle-manager does with the field. */
  reads: string;
  name: string;
  klm: KlmDoes;
  expected: Expected;
  object: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const admit: Expected = { verdict: "admit" };
const warn = (rule: string, words: string): Expected => ({ verdict: "warn", rule, words });
const deny = (rule: string, words: string): Expected => ({ verdict: "deny", rule, words });

/** A template changed by `change` (which edits the clone in place). */
function template(change: (t: Json & { metadata: Json; spec: Json }) => void): Json {
  const t = structuredClone(kedaTemplate()) as unknown as Json & { metadata: Json; spec: Json };
  change(t);
  return t;
}

/** The template renamed and versioned together (name `keda-<version>`, as lifecycle-manager looks it up). */
const versioned = (version: string) =>
  template((t) => {
    t.metadata.name = `keda-${version}`;
    t.spec.version = version;
  });

function releaseMeta(change: (m: Json & { metadata: Json; spec: Json }) => void): Json {
  const m = structuredClone(kedaReleaseMeta()) as unknown as Json & { metadata: Json; spec: Json };
  change(m);
  return m;
}

const specSet = (field: string, value: unknown) =>
  template((t) => {
    t.spec[field] = value;
  });

const metaSpecSet = (field: string, value: unknown) =>
  releaseMeta((m) => {
    m.spec[field] = value;
  });

const annotated = (annotations: Record<string, string>) =>
  template((t) => {
    t.metadata.annotations = annotations;
  });

const label = (key: string, value: string) =>
  template((t) => {
    t.metadata.labels = { ...(t.metadata.labels as Json), [key]: value };
  });

const uint64Max = "18446744073709551615";
const beyondUint64 = "18446744073709551616";

export function klmCases(): KlmCase[] {
  const mt = (field: string, reads: string, cases: [string, KlmDoes, Expected, Json][]): KlmCase[] =>
    cases.map(([name, klm, expected, object]) => ({
      kind: "ModuleTemplate",
      field,
      reads,
      name,
      klm,
      expected,
      object,
    }));
  const mrm = (field: string, reads: string, cases: [string, KlmDoes, Expected, Json][]): KlmCase[] =>
    cases.map(([name, klm, expected, object]) => ({
      kind: "ModuleReleaseMeta",
      field,
      reads,
      name,
      klm,
      expected,
      object,
    }));
  const clusterScoped = "operator.kyma-project.io/is-cluster-scoped";
  return [
    ...mt("metadata.name", "finds the template by the name <moduleName>-<version> (common.go:16-33)", [
      ["keda-1.2.0 for keda 1.2.0", "accepts", admit, template(() => {})],
      [
        "keda-1.2.1 for version 1.2.0: a mix of two versions installed",
        "fails",
        deny("moduletemplate.name-matches-spec", 'as metadata.name "keda-1.2.1"'),
        template((t) => {
          t.metadata.name = "keda-1.2.1";
        }),
      ],
      [
        "a name of another shape: never looked up",
        "may fail",
        warn("moduletemplate.advice", "the name the lifecycle manager looks up"),
        template((t) => {
          t.metadata.name = "keda-latest";
        }),
      ],
    ]),
    ...mt(
      "spec.moduleName",
      "the module the template belongs to; with the version, its name (remote_catalog.go:178-190)",
      [
        [
          "another module than the name says",
          "fails",
          deny("moduletemplate.name-matches-spec", 'as metadata.name "keda-1.2.0"'),
          template((t) => {
            t.spec.moduleName = "other";
            t.metadata.labels = {};
          }),
        ],
        ["off Kyma's pattern", "fails", deny("crd", "spec.moduleName"), specSet("moduleName", "Keda")],
      ],
    ),
    ...mt(
      "spec.version",
      "the descriptor is fetched for it (regular.go:113); Masterminds/semver parses it in the skew check (regular.go:197-260)",
      [
        ["a pre-release", "accepts", admit, versioned("1.2.0-rc1")],
        ["a patch of uint64's maximum", "accepts", admit, versioned(`1.0.${uint64Max}`)],
        [
          "a patch above uint64: no release meta may name it",
          "may fail",
          warn("moduletemplate.version", "cannot be parsed by lifecycle-manager"),
          versioned(`1.0.${beyondUint64}`),
        ],
        [
          "not set: cannot be resolved",
          "may fail",
          warn("moduletemplate.advice", "spec.version is not set"),
          template((t) => {
            delete t.spec.version;
          }),
        ],
        ["off Kyma's pattern", "fails", deny("crd", "spec.version"), specSet("version", "v1.2.0")],
      ],
    ),
    ...mt("spec.mandatory", "a mandatory template is refused in a Kyma's lookup (regular.go:159-162)", [
      ["false", "accepts", admit, specSet("mandatory", false)],
      [
        "true on a versioned template",
        "may fail",
        warn("moduletemplate.mandatory", "no templates were found"),
        specSet("mandatory", true),
      ],
    ]),
    ...mt("spec.data", "created after the install as given, name and namespace filled in (001, data)", [
      [
        "a core-group ConfigMap",
        "accepts",
        admit,
        specSet("data", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }),
      ],
      [
        "without a kind",
        "fails",
        deny("crd", "spec.data.kind"),
        specSet("data", { apiVersion: "v1", metadata: { name: "c" } }),
      ],
      [
        "a group without a version",
        "fails",
        deny("moduletemplate.data-api-version", "must be group/version"),
        specSet("data", { apiVersion: "operator.kyma-project.io", kind: "Keda" }),
      ],
      [
        "with a status: ignored",
        "accepts",
        warn("moduletemplate.advice", "spec.data.status is ignored"),
        template((t) => {
          (t.spec.data as Json).status = { state: "Ready" };
        }),
      ],
    ]),
    ...mt(
      "spec.manager",
      "the resource whose state shows the module's readiness; namespace optional only when not namespaced (CRD, 001)",
      [
        [
          "a CustomResourceDefinition without a namespace",
          "accepts",
          admit,
          specSet("manager", {
            group: "apiextensions.k8s.io",
            version: "v1",
            kind: "CustomResourceDefinition",
            name: "kedas.operator.kyma-project.io",
          }),
        ],
        [
          "an empty name",
          "may fail",
          warn("moduletemplate.manager", "spec.manager.name is empty"),
          specSet("manager", {
            group: "apps",
            version: "v1",
            kind: "Deployment",
            namespace: "kyma-system",
            name: "",
          }),
        ],
        [
          "an empty kind",
          "may fail",
          warn("moduletemplate.manager", "spec.manager.kind is empty"),
          specSet("manager", {
            group: "apps",
            version: "v1",
            kind: "",
            namespace: "kyma-system",
            name: "keda-manager",
          }),
        ],
        [
          "a Deployment without a namespace",
          "may fail",
          warn("moduletemplate.manager", "spec.manager.namespace is not set"),
          specSet("manager", { group: "apps", version: "v1", kind: "Deployment", name: "keda-manager" }),
        ],
        [
          "without a name",
          "fails",
          deny("crd", "spec.manager.name"),
          specSet("manager", { group: "apps", version: "v1", kind: "Deployment", namespace: "kyma-system" }),
        ],
      ],
    ),
    ...mt("spec.requiresDowntime", "upgrades wait for a maintenance window when true (001)", [
      ["true", "accepts", admit, specSet("requiresDowntime", true)],
    ]),
    ...mt("spec.associatedResources", "cleaned up on the module's deletion (001)", [
      ["none", "accepts", admit, specSet("associatedResources", [])],
    ]),
    ...mt(
      "metadata.labels[operator.kyma-project.io/beta], [.../internal]",
      'strings.ToLower(v) == "true" (moduletemplate_types.go:220-232)',
      [
        ["beta True", "accepts", admit, label("operator.kyma-project.io/beta", "True")],
        ["internal TRUE", "accepts", admit, label("operator.kyma-project.io/internal", "TRUE")],
        [
          "beta yes: read as false",
          "may fail",
          warn("moduletemplate.labels", "is neither true nor false"),
          label("operator.kyma-project.io/beta", "yes"),
        ],
      ],
    ),
    ...mt(
      "metadata.labels[operator.kyma-project.io/module-name]",
      "lists a module's templates by it (moduletemplate_repo.go:27-30)",
      [
        [
          "another module",
          "may fail",
          warn("moduletemplate.labels", "module-name label"),
          label("operator.kyma-project.io/module-name", "other"),
        ],
      ],
    ),
    ...mt(
      "metadata.annotations[operator.kyma-project.io/is-cluster-scoped]",
      'compared exactly with "true" (generator.go:97)',
      [
        ["true", "accepts", admit, annotated({ [clusterScoped]: "true" })],
        [
          "True: read as namespaced (denied by a rule declared stricter)",
          "accepts",
          deny("moduletemplate.cluster-scoped", 'supported values: "true", "false"'),
          annotated({ [clusterScoped]: "True" }),
        ],
      ],
    ),
    // Fields lifecycle-manager does not read: never denied for it, at most a warning.
    ...mt("spec.info", "not read (Kyma's UIs show it)", [
      [
        'documentation ""',
        "not read",
        warn("moduletemplate.info-link", "spec.info.documentation"),
        template((t) => {
          (t.spec.info as Json).documentation = "";
        }),
      ],
    ]),
    ...mt("spec.customStateCheck", "not read since 2025-09", [
      [
        "a state mapping",
        "not read",
        warn("moduletemplate.advice", "spec.customStateCheck is ignored"),
        specSet("customStateCheck", [{ jsonPath: "status.health", value: "green", mappedState: "Ready" }]),
      ],
    ]),
    ...mt("spec.descriptor", "not read by current lifecycle-manager (modulectl writes {})", [
      ["empty", "not read", admit, specSet("descriptor", {})],
    ]),
    ...mt("metadata.labels[operator.kyma-project.io/sync]", "not read since 2025-03", [
      ["false", "not read", admit, label("operator.kyma-project.io/sync", "false")],
    ]),
    ...mt("spec.resources[].link", "not read by lifecycle-manager: fetched by people and tools (001)", [
      [
        "a relative link (denied by a rule declared stricter)",
        "not read",
        deny("moduletemplate.link", "must be an absolute http, https or oci URL"),
        specSet("resources", [{ name: "rawManifest", link: "/keda-manager.yaml" }]),
      ],
    ]),
    ...mrm(
      "metadata.name",
      "a Kyma's module is looked up by the release meta's name (modulereleasemeta.go:21-29)",
      [
        ["the module's name", "accepts", admit, releaseMeta(() => {})],
        [
          "another name",
          "may fail",
          warn("modulereleasemeta.name", "spec.moduleName"),
          releaseMeta((m) => {
            m.metadata.name = "keda-meta";
          }),
        ],
      ],
    ),
    ...mrm("spec.ocmComponentName", "the component identity needs it (lookup.go:54-60)", [
      [
        "not set",
        "fails",
        warn("modulereleasemeta.unresolvable", "ocmComponentName"),
        releaseMeta((m) => {
          delete m.spec.ocmComponentName;
        }),
      ],
    ]),
    ...mrm(
      "spec.channels[].version",
      "the template <moduleName>-<version> of the channel; Masterminds/semver in the skew check (regular.go:197-260)",
      [
        [
          "uint64's maximum",
          "accepts",
          admit,
          metaSpecSet("channels", [{ channel: "regular", version: `1.0.${uint64Max}` }]),
        ],
        [
          "above uint64",
          "fails",
          deny("modulereleasemeta.version", "strconv.ParseUint"),
          metaSpecSet("channels", [{ channel: "regular", version: `1.0.${beyondUint64}` }]),
        ],
        [
          'a version "": no template is named after it',
          "fails",
          warn("modulereleasemeta.unresolvable", "spec.channels[0].version"),
          metaSpecSet("channels", [{ channel: "regular", version: "" }]),
        ],
        [
          "a channel off Kyma's pattern",
          "fails",
          deny("crd", "spec.channels[0].channel"),
          metaSpecSet("channels", [{ channel: "Regular", version: "1.2.0" }]),
        ],
      ],
    ),
    ...mrm(
      "spec.mandatory.version",
      "installed on every Kyma, template <name>-<version> (installation_service.go:82-101)",
      [
        [
          "a version",
          "accepts",
          admit,
          releaseMeta((m) => {
            delete m.spec.channels;
            m.spec.mandatory = { version: "1.2.0" };
          }),
        ],
        [
          "with build metadata: no template can be named after it, every mandatory module blocked",
          "fails",
          warn("modulereleasemeta.unresolvable", "spec.mandatory.version"),
          releaseMeta((m) => {
            delete m.spec.channels;
            m.spec.mandatory = { version: "1.2.0+b1" };
          }),
        ],
        [
          "both mandatory and channels",
          "fails",
          deny("crd", "exactly one of 'mandatory' or 'channels'"),
          metaSpecSet("mandatory", { version: "1.2.0" }),
        ],
      ],
    ),
    ...mrm("spec.beta, spec.internal", "the module is offered only to beta or internal Kymas", [
      [
        "both true",
        "accepts",
        admit,
        releaseMeta((m) => {
          m.spec.beta = true;
          m.spec.internal = true;
        }),
      ],
    ]),
  ];
}
