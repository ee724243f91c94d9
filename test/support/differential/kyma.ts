import { kedaReleaseMeta } from "../modulereleasemetas.js";
import { kedaTemplate } from "../moduletemplates.js";
import type { Random } from "./random.js";
import { generateUrl } from "./url.js";

/**
 * ModuleTemplates and ModuleReleaseMetas as people write them, and their near misses: a valid object
 * (keda's) with one to three fields changed to values around what lifecycle-manager's CRDs check
 * (patterns, lengths, enums, required fields, types, list-map keys, the embedded resource's metadata,
 * the release meta's CEL rule) and what our webhook adds (names, versions, links, labels). Every object
 * is in the namespace the tests send it to, so only its content decides.
 */
type Json = Record<string, unknown>;
type Mutation = (object: Json, random: Random) => void;

export const kymaNamespace = "kcp-system";

/** Values of the wrong JSON type, for any field. */
const typeNoise: readonly unknown[] = [1, -1, 2.5, true, false, null, [], {}, "x", ["a"], { a: 1 }];
/** One of them, a copy of its own (later changes must not reach another object). */
const noise = (random: Random): unknown => structuredClone(random.pick(typeNoise));

const letters = [..."abcdefghijklmnopqrstuvwxyz"];

/** A word of lower-case letters of 1 to `max` letters. */
const word = (random: Random, max = 6) => random.join(letters, 1, max);

/** Module names: words joined by "-", and their near misses (short words, digits, capitals, lengths). */
function moduleNameLike(random: Random): string {
  switch (random.int(0, 6)) {
    case 0:
      return random.pick([
        "keda",
        "api-gateway",
        "btp-operator",
        "",
        "ab",
        "Keda",
        "keda-",
        "-keda",
        "keda1",
      ]);
    case 1:
      return Array.from({ length: random.int(1, 12) }, () => word(random, 8)).join("-");
    case 2:
      return "k".repeat(random.pick([63, 64, 65, 200]));
    case 3:
      return random.join([...letters.slice(0, 4), "-", "1", "A", "_", "."], 1, 14);
    default:
      return Array.from({ length: random.int(1, 3) }, () => `${word(random, 3)}${word(random, 5)}`).join("-");
  }
}

/** Versions: semver and its near misses (leading zeros, pre-releases, build metadata, lengths). */
function versionLike(random: Random): string {
  if (random.chance(0.1)) return random.pick(["", "v1.2.0", "1.2", "1.2.0.0", "latest", " 1.2.0", "1.2.0 "]);
  const number = () => random.pick(["0", "1", "2", "10", "01", "00", "123456789", "99999999999999999999"]);
  const core = `${number()}.${number()}.${number()}`;
  const pre = random.chance(0.4)
    ? `-${random.pick(["rc1", "RC", "alpha.1", "-x", "1a", "1", "0a", "a..b", "", "dev-2", "x_y", "é"])}`
    : "";
  const build = random.chance(0.15)
    ? `+${random.pick(["b1", "build.5", "", "x..y", "exp.sha.5114f85"])}`
    : "";
  const version = `${core}${pre}${build}`;
  return random.chance(0.05) ? version.padEnd(random.int(31, 34), "a") : version;
}

function channelLike(random: Random): string {
  return random.pick([
    "regular",
    "fast",
    "experimental",
    "Fast",
    "ab",
    "abc",
    "",
    "fast-track",
    "fast1",
    "a".repeat(32),
    "a".repeat(33),
    word(random, 10),
  ]);
}

/** Links: the URL generator's, and the forms Kyma's templates use or get wrong. */
function linkLike(random: Random): string {
  if (random.chance(0.5)) return generateUrl(random);
  return random.pick([
    "https://example.com/keda-manager.yaml",
    "http://example.com/a",
    "oci://europe-docker.pkg.dev/kyma-project/charts/keda:2.14.0",
    "/keda-manager.yaml",
    "keda.yaml",
    "ftp://example.com/a",
    "mailto:team@example.com",
    "",
    "https://",
    "https:///path",
    "https://exa mple.com",
    "https://example.com/%zz",
    "HTTPS://EXAMPLE.COM",
    "urn:isbn:0451450523",
  ]);
}

/** Object names: DNS subdomains and what is not one (capitals, `_`, `/`, `%`, dots, 253+ characters). */
function objectNameLike(random: Random): string {
  return random.pick([
    "keda-1.2.0",
    "keda-regular",
    `${moduleNameLike(random)}-${versionLike(random)}`,
    "Keda-1.2.0",
    "keda_1",
    "a/b",
    "a%b",
    ".",
    "..",
    "-keda",
    "keda.",
    "k".repeat(253),
    "k".repeat(254),
    `${"k".repeat(63)}.${"k".repeat(63)}`,
    "k".repeat(64),
    word(random, 12),
  ]);
}

const labelKeys = [
  "operator.kyma-project.io/module-name",
  "operator.kyma-project.io/beta",
  "operator.kyma-project.io/internal",
  "app.kubernetes.io/name",
  "bad key",
  "a/b/c",
  "/x",
  "x/",
  "k".repeat(63),
  "k".repeat(64),
  `${"d".repeat(254)}/x`,
  "Example.com/x",
];
const labelValues = [
  "true",
  "false",
  "True",
  "TRUE",
  "yes",
  "",
  "-bad",
  "ok-",
  "a b",
  "keda",
  "v".repeat(63),
  "v".repeat(64),
];

function labelsLike(random: Random): Json {
  return Object.fromEntries(
    Array.from({ length: random.int(0, 3) }, () => [
      random.pick(labelKeys),
      random.chance(0.05) ? noise(random) : random.pick(labelValues),
    ]),
  );
}

function annotationsLike(random: Random): Json {
  const annotations: Json = {};
  for (let i = random.int(1, 2); i > 0; i--) {
    const key = random.pick(["operator.kyma-project.io/is-cluster-scoped", ...labelKeys]);
    annotations[key] = random.chance(0.05)
      ? noise(random)
      : random.pick(["true", "false", "True", "yes", "", "x".repeat(100)]);
  }
  // The total size limit (256 KiB), rarely.
  if (random.chance(0.03)) annotations.big = "x".repeat(random.pick([262_000, 262_200]));
  return annotations;
}

const spec = (object: Json): Json => {
  if (object.spec === null || typeof object.spec !== "object" || Array.isArray(object.spec)) object.spec = {};
  return object.spec as Json;
};
const metadata = (object: Json): Json => object.metadata as Json;

/** `value`, or sometimes a value of another type, or (returning undefined) the field left out. */
function valueOr<T>(random: Random, value: T): unknown {
  if (random.chance(0.1)) return undefined;
  if (random.chance(0.1)) return noise(random);
  return value;
}

function set(target: Json, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/** Items of a list keyed by `name`: few names, so some repeat. */
function namedItems(random: Random, make: (name: unknown) => unknown): unknown[] {
  return Array.from({ length: random.int(0, 3) }, () =>
    make(valueOr(random, random.pick(["chart", "rawManifest", "module-icon", "", "Chart"]))),
  );
}

const templateMutations: Mutation[] = [
  (t, r) => set(metadata(t), "name", r.chance(0.05) ? undefined : objectNameLike(r)),
  (t, r) => set(metadata(t), "labels", labelsLike(r)),
  (t, r) => set(metadata(t), "annotations", annotationsLike(r)),
  (t, r) =>
    set(
      metadata(t),
      "finalizers",
      valueOr(
        r,
        Array.from({ length: r.int(0, 3) }, () =>
          r.pick([
            "operator.kyma-project.io/finalizer",
            "x",
            "a/b/c",
            "orphan",
            "foregroundDeletion",
            "Bad/x",
            1,
          ]),
        ),
      ),
    ),
  (t, r) => set(spec(t), "channel", valueOr(r, channelLike(r))),
  (t, r) => set(spec(t), "version", valueOr(r, versionLike(r))),
  (t, r) => set(spec(t), "moduleName", valueOr(r, moduleNameLike(r))),
  (t, r) => set(spec(t), "mandatory", valueOr(r, r.chance(0.5))),
  (t, r) => set(spec(t), "requiresDowntime", valueOr(r, r.chance(0.5))),
  (t, r) =>
    set(
      spec(t),
      "descriptor",
      structuredClone(r.pick([undefined, null, "x", [], {}, { component: { name: "x" } }])),
    ),
  (t, r) => set(spec(t), "data", structuredClone(r.pick([undefined, null, "x", [], {}, { kind: "Keda" }]))),
  (t, r) => {
    const data = spec(t).data as Json | undefined;
    if (data === null || typeof data !== "object") return;
    set(
      data,
      "apiVersion",
      valueOr(
        r,
        r.pick([
          "v1",
          "apps/v1",
          "operator.kyma-project.io/v1alpha1",
          "operator.kyma-project.io",
          "Operator.io/v1",
          "a/b/c",
          "/v1",
          "x/",
          "",
          "example.com/V1",
          "example.com/1v",
          `${word(r)}.io/${word(r, 3)}${r.int(1, 3)}`,
        ]),
      ),
    );
  },
  (t, r) => {
    const data = spec(t).data as Json | undefined;
    if (data === null || typeof data !== "object") return;
    set(
      data,
      "kind",
      valueOr(r, r.pick(["Keda", "keda", "", "Ke da", "1Keda", "Ke-da", "K", "Ke.da", word(r)])),
    );
  },
  (t, r) => {
    const data = spec(t).data as Json | undefined;
    if (data === null || typeof data !== "object") return;
    const meta: Json = {};
    set(meta, "name", valueOr(r, r.pick(["default", "a/b", "a%b", "..", "UPPER", "", "x".repeat(300)])));
    if (r.chance(0.4))
      set(meta, "namespace", valueOr(r, r.pick(["kyma-system", "Prod", "", "x".repeat(64)])));
    if (r.chance(0.3)) meta.labels = labelsLike(r);
    if (r.chance(0.2)) meta.annotations = annotationsLike(r);
    if (r.chance(0.1)) meta.generateName = r.pick(["keda-", "Keda-"]);
    if (r.chance(0.1)) meta.unknownField = "x";
    data.metadata = r.chance(0.05) ? noise(r) : meta;
  },
  (t, r) =>
    set(
      spec(t),
      "customStateCheck",
      valueOr(
        r,
        Array.from({ length: r.int(0, 3) }, () => {
          const item: Json = {};
          set(item, "jsonPath", valueOr(r, "status.state"));
          set(item, "value", valueOr(r, "Ready"));
          set(
            item,
            "mappedState",
            valueOr(
              r,
              r.pick([
                "Processing",
                "Deleting",
                "Ready",
                "Error",
                "",
                "Warning",
                "Unmanaged",
                "ready",
                "Foo",
              ]),
            ),
          );
          return item;
        }),
      ),
    ),
  (t, r) =>
    set(
      spec(t),
      "resources",
      valueOr(
        r,
        namedItems(r, (name) => {
          const item: Json = {};
          set(item, "name", name);
          set(item, "link", valueOr(r, linkLike(r)));
          return item;
        }),
      ),
    ),
  (t, r) => {
    const info: Json = {};
    set(info, "repository", valueOr(r, linkLike(r)));
    set(info, "documentation", valueOr(r, linkLike(r)));
    if (r.chance(0.7)) {
      set(
        info,
        "icons",
        valueOr(
          r,
          namedItems(r, (name) => {
            const icon: Json = {};
            set(icon, "name", name);
            set(icon, "link", valueOr(r, linkLike(r)));
            return icon;
          }),
        ),
      );
    }
    set(spec(t), "info", r.chance(0.1) ? (r.chance(0.2) ? undefined : noise(r)) : info);
  },
  (t, r) =>
    set(
      spec(t),
      "associatedResources",
      valueOr(
        r,
        Array.from({ length: r.int(0, 2) }, () => {
          const gvk: Json = {};
          for (const key of ["group", "version", "kind"])
            set(gvk, key, valueOr(r, r.pick(["", "keda.sh", "v1", "X"])));
          return gvk;
        }),
      ),
    ),
  (t, r) => {
    const manager: Json = {};
    for (const key of ["group", "version", "kind", "name", "namespace"])
      set(manager, key, valueOr(r, r.pick(["", "apps", "v1", "Deployment", "keda-manager", "Bad Name"])));
    set(spec(t), "manager", r.chance(0.1) ? (r.chance(0.2) ? undefined : noise(r)) : manager);
  },
  // Fields Kyma's CRD does not know (the API server prunes them and warns) and whole parts of the wrong type.
  (t, r) => {
    const target = r.pick(["spec", "root", "metadata"]);
    const key = r.pick(["target", "foo", "status", "Version"]);
    if (target === "spec") spec(t)[key] = "x";
    else if (target === "metadata") metadata(t)[key] = "x";
    else t[key] = { x: 1 };
  },
  (t, r) => {
    t.spec = noise(r);
  },
];

/** A ModuleTemplate: keda's, with one to three fields changed. */
export function generateModuleTemplate(random: Random): Json {
  const template = kedaTemplate() as unknown as Json;
  for (let n = random.int(1, 3); n > 0; n--) random.pick(templateMutations)(template, random);
  return template;
}

const releaseMetaMutations: Mutation[] = [
  (m, r) =>
    set(
      metadata(m),
      "name",
      r.chance(0.05)
        ? undefined
        : r.chance(0.3)
          ? "k".repeat(r.pick([200, 220, 240, 250, 253]))
          : r.pick([moduleNameLike(r), objectNameLike(r)]),
    ),
  (m, r) => set(metadata(m), "labels", labelsLike(r)),
  (m, r) => set(spec(m), "moduleName", r.chance(0.1) ? undefined : valueOr(r, moduleNameLike(r))),
  (m, r) =>
    set(
      spec(m),
      "ocmComponentName",
      valueOr(
        r,
        r.pick([
          "kyma-project.io/module/keda",
          "kyma-project.io/keda",
          "kyma-project.io",
          "Kyma-project.io/module/keda",
          "kyma-project.io/module/Keda",
          "kyma-project.io/module/ke_da",
          "a.b/c",
          "",
          `kyma-project.io/${"m".repeat(250)}`,
        ]),
      ),
    ),
  (m, r) =>
    set(
      spec(m),
      "channels",
      r.chance(0.1)
        ? r.chance(0.2)
          ? undefined
          : noise(r)
        : Array.from({ length: r.int(0, 3) }, () => {
            const item: Json = {};
            set(item, "channel", valueOr(r, channelLike(r)));
            set(item, "version", valueOr(r, versionLike(r)));
            return item;
          }),
    ),
  (m, r) => {
    const mandatory: Json = {};
    set(mandatory, "version", valueOr(r, versionLike(r)));
    set(spec(m), "mandatory", r.chance(0.1) ? (r.chance(0.2) ? undefined : noise(r)) : mandatory);
    // Mostly with the channels gone, as a mandatory module's release meta is.
    if (r.chance(0.7)) delete spec(m).channels;
  },
  (m, r) => set(spec(m), "beta", valueOr(r, r.chance(0.5))),
  (m, r) => set(spec(m), "internal", valueOr(r, r.chance(0.5))),
  (m, r) => {
    const selector: Json = {};
    if (r.chance(0.7)) selector.matchLabels = r.chance(0.1) ? noise(r) : labelsLike(r);
    if (r.chance(0.5)) {
      selector.matchExpressions = Array.from({ length: r.int(0, 2) }, () => {
        const expression: Json = {};
        set(expression, "key", valueOr(r, r.pick(labelKeys)));
        set(expression, "operator", valueOr(r, r.pick(["In", "NotIn", "Exists", "DoesNotExist", "in", ""])));
        set(expression, "values", valueOr(r, structuredClone(r.pick([[], ["a"], ["a", "a"], [1]]))));
        return expression;
      });
    }
    set(spec(m), "kymaSelector", r.chance(0.1) ? noise(r) : selector);
  },
  (m, r) => {
    const target = r.pick(["spec", "root"]);
    const key = r.pick(["target", "foo", "status", "Channels"]);
    if (target === "spec") spec(m)[key] = "x";
    else m[key] = { x: 1 };
  },
  (m, r) => {
    m.spec = noise(r);
  },
];

/** A ModuleReleaseMeta: keda's (two channels), with one to three fields changed. */
export function generateModuleReleaseMeta(random: Random): Json {
  const meta = kedaReleaseMeta() as unknown as Json;
  for (let n = random.int(1, 3); n > 0; n--) random.pick(releaseMetaMutations)(meta, random);
  return meta;
}
