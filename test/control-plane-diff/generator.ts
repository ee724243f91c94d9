import fc from "fast-check";
import { int64Value, writeJson } from "../../src/base/exact-json.js";
import type { OfflineKind } from "../../src/offline/kinds.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";
import type { Input } from "./inputs.js";

/**
 * Objects made from each kind's CRD schema, for the generated differential: valid ones (every
 * required field, optional ones at random, values within the schema's types, enums, patterns and
 * bounds), and ones a single mutation away from valid: a value of another type, a bound crossed, a
 * pattern or an enum missed, a list-type map or set with a repeated item, a bad metadata field, a
 * null, an unknown field, or the edge of one of the CRD's CEL rules. A share are UPDATE pairs: an old
 * object (itself valid or one mutation away, as a legacy object may be) and a new one a change away.
 * Deterministic for a seed.
 */
export interface Generated extends Input {
  kind: OfflineKind;
  mutation: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = JsonSchema & Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const urls = [
  "https://example.com/a",
  "http://charts.example.org/x?y=1",
  "/absolute/path",
  "oci://registry/chart",
];
/** Strings that meet the patterns of this project's schemas, for a generated match out of bounds. */
const examples = [
  "",
  "abc",
  "regular",
  "fast",
  "keda",
  "1.0.0",
  "1.2.3-rc1",
  "kyma-project.io/module/keda",
  "Ready",
  "a",
];
const plainChars = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-._ ABCXYZé{}".split(""));

/** A JSON value of a schema node, valid under the node's own keywords. */
function arbitrary(schema: Schema, depth = 0): fc.Arbitrary<Json> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema["x-kubernetes-embedded-resource"] === true) {
    return fc.record({
      apiVersion: fc.constantFrom("v1", "apps/v1"),
      kind: fc.constantFrom("ConfigMap", "Deployment"),
      metadata: fc.record({ name: fc.constantFrom("data", "sample") }),
    });
  }
  switch (schema.type) {
    case "string":
      return stringArbitrary(schema);
    case "integer": {
      const small = fc.integer({
        min: typeof schema.minimum === "number" ? schema.minimum : -20,
        max: typeof schema.maximum === "number" ? schema.maximum : 20,
      });
      // An unbounded integer now and then at int64's edges (held exactly, as bigints beyond 2^53-1).
      if (typeof schema.minimum === "number" || typeof schema.maximum === "number") return small;
      return fc.oneof(
        { arbitrary: small, weight: 5 },
        { arbitrary: fc.constantFrom(...int64Edges), weight: 1 },
      );
    }
    case "number":
      return fc.double({ min: -20, max: 20, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return arrayArbitrary(schema, depth);
    default:
      return objectArbitrary(schema, depth);
  }
}

function stringArbitrary(schema: Schema): fc.Arbitrary<Json> {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : 24;
  if (schema.format === "uri") return fc.constantFrom(...urls);
  if (schema.format === "date-time")
    return fc.constantFrom("2026-11-28T10:00:00Z", "2026-01-01T00:00:00.5+02:00");
  if (typeof schema.pattern === "string") {
    const pattern = new RegExp(schema.pattern);
    const fits = (text: string) => text.length >= min && text.length <= max && pattern.test(text);
    // A generated match outside the length bounds becomes a known one inside them (no filter: a
    // filter that rarely passes never ends).
    const known = examples.find(fits) ?? "";
    return fc.stringMatching(pattern, { size: "xsmall" }).map((text) => (fits(text) ? text : known));
  }
  return fc.string({ unit: plainChars, minLength: min, maxLength: Math.min(Math.max(max, min), 24) });
}

function arrayArbitrary(schema: Schema, depth: number): fc.Arbitrary<Json> {
  const items = isSchema(schema.items) ? schema.items : { type: "string" };
  const minLength = typeof schema.minItems === "number" ? schema.minItems : 0;
  const maxLength = Math.max(
    minLength,
    Math.min(typeof schema.maxItems === "number" ? schema.maxItems : 3, 3),
  );
  const item = arbitrary(items as Schema, depth + 1);
  if (schema["x-kubernetes-list-type"] === "map") {
    const keys = (schema["x-kubernetes-list-map-keys"] ?? []) as string[];
    return fc.uniqueArray(item, {
      minLength,
      maxLength,
      selector: (value) => writeJson(keys.map((key) => (value as Record<string, Json>)?.[key])),
    });
  }
  if (schema["x-kubernetes-list-type"] === "set") {
    return fc.uniqueArray(item, { minLength, maxLength, selector: (value) => writeJson(value) });
  }
  return fc.array(item, { minLength, maxLength });
}

function objectArbitrary(schema: Schema, depth: number): fc.Arbitrary<Json> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  if (Object.keys(properties).length === 0) {
    if (isSchema(schema.additionalProperties)) {
      return fc.dictionary(
        fc.constantFrom("a", "b", "key", "x.y"),
        arbitrary(schema.additionalProperties, depth + 1),
        {
          maxKeys: 3,
        },
      );
    }
    // Free-form (x-kubernetes-preserve-unknown-fields): small JSON.
    return depth > 6
      ? fc.constant({})
      : fc.dictionary(
          fc.constantFrom("replicas", "tag", "host", "enabled", "x"),
          fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
          {
            maxKeys: 3,
          },
        );
  }
  const model: Record<string, fc.Arbitrary<Json>> = {};
  for (const [name, child] of Object.entries(properties)) {
    if (name === "status" || name === "metadata" || name === "apiVersion" || name === "kind") continue;
    model[name] = arbitrary(child, depth + 1);
  }
  const requiredKeys = Object.keys(model).filter((name) => required.has(name));
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<Json>;
}

/** A node of an object with the schema that describes it. */
interface Node {
  path: (string | number)[];
  schema: Schema | undefined;
  value: unknown;
}

function nodes(
  schema: Schema | undefined,
  value: unknown,
  path: (string | number)[] = [],
  out: Node[] = [],
): Node[] {
  out.push({ path, schema, value });
  if (Array.isArray(value)) {
    const items = schema && isSchema(schema.items) ? schema.items : undefined;
    value.forEach((item, i) => {
      nodes(items, item, [...path, i], out);
    });
  } else if (value !== null && typeof value === "object") {
    const properties = (schema?.properties ?? {}) as Record<string, Schema>;
    const additional =
      schema && isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
    for (const [key, child] of Object.entries(value)) {
      // The object's identity and metadata are not the schema's to mutate (metadata has its own mutation).
      if (path.length === 0 && (key === "metadata" || key === "apiVersion" || key === "kind")) continue;
      nodes(Object.hasOwn(properties, key) ? properties[key] : additional, child, [...path, key], out);
    }
  }
  return out;
}

function setAt(object: Record<string, unknown>, path: (string | number)[], value: unknown): void {
  let node = object as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = value;
}

/** A pseudo-random choice source for the mutations, from the seed (mulberry32). */
function chooser(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(items: readonly T[]): T | undefined =>
      items.length === 0 ? undefined : items[Math.floor(next() * items.length)],
  };
}

type Choice = ReturnType<typeof chooser>;

/** int64's edges and 2^53's, each an int64 (a bigint beyond 2^53-1). */
const int64Edges = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 53n - 1n].map(
  (n) => int64Value(n) as unknown as Json,
);

/**
 * Numbers beyond int64, which the API server reads as float64s (JSON.stringify writes them with every
 * digit, as Go does): no integer field holds them.
 */
const beyondInt64 = [2 ** 63, -(2 ** 63) - 2048, 2 ** 64, -(2 ** 64)];

/** Mutations a single step from valid: each changes `object` in place and says what it did, or fails. */
const mutations: Record<
  string,
  (object: Record<string, unknown>, schema: Schema, choose: Choice) => string | undefined
> = {
  type(object, schema, choose) {
    const node = choose.pick(nodes(schema, object).filter((n) => n.path.length > 0 && n.schema?.type));
    if (!node) return undefined;
    const other: Record<string, unknown> = {
      string: 7,
      integer: "7",
      boolean: "yes",
      object: "text",
      array: { a: 1 },
      number: "x",
    };
    setAt(object, node.path, other[String(node.schema?.type)] ?? 1.5);
    return `${node.path.join(".")} of another type`;
  },
  int64(object, schema, choose) {
    const node = choose.pick(
      nodes(schema, object).filter((n) => n.path.length > 0 && n.schema?.type === "integer"),
    );
    if (!node) return undefined;
    const value = choose.pick(beyondInt64) as number;
    setAt(object, node.path, value);
    return `${node.path.join(".")} a float64 ${value} (beyond int64)`;
  },
  bound(object, schema, choose) {
    const bounded = nodes(schema, object).filter(
      (n) =>
        n.path.length > 0 &&
        (typeof n.schema?.maxLength === "number" ||
          typeof n.schema?.minLength === "number" ||
          typeof n.schema?.minItems === "number" ||
          typeof n.schema?.minimum === "number"),
    );
    const node = choose.pick(bounded);
    if (!node?.schema) return undefined;
    const s = node.schema;
    if (typeof s.maxLength === "number")
      setAt(object, node.path, "a".repeat(s.maxLength + 1 + Math.floor(choose.next() * 3)));
    else if (typeof s.minLength === "number") setAt(object, node.path, "");
    else if (typeof s.minItems === "number") setAt(object, node.path, []);
    else if (typeof s.minimum === "number") setAt(object, node.path, s.minimum - 1);
    return `${node.path.join(".")} past its bound`;
  },
  pattern(object, schema, choose) {
    const node = choose.pick(
      nodes(schema, object).filter((n) => typeof n.schema?.pattern === "string" && n.path.length > 0),
    );
    if (!node) return undefined;
    setAt(object, node.path, choose.pick(["Not_A_Match!", "UPPER", "-x-", "1.2", ""]));
    return `${node.path.join(".")} off its pattern`;
  },
  enum(object, schema, choose) {
    const node = choose.pick(
      nodes(schema, object).filter((n) => Array.isArray(n.schema?.enum) && n.path.length > 0),
    );
    if (!node) return undefined;
    setAt(object, node.path, choose.pick(["other", "Ready ", "", "READY"]));
    return `${node.path.join(".")} outside its enum`;
  },
  listType(object, schema, choose) {
    const node = choose.pick(
      nodes(schema, object).filter(
        (n) =>
          Array.isArray(n.value) && (n.value as unknown[]).length > 0 && n.schema?.["x-kubernetes-list-type"],
      ),
    );
    if (!node) return undefined;
    const list = node.value as unknown[];
    list.push(structuredClone(list[Math.floor(choose.next() * list.length)]));
    return `${node.path.join(".")} with an item twice`;
  },
  metadata(object, _schema, choose) {
    const metadata = object.metadata as Record<string, unknown>;
    const change = choose.pick([
      () => Object.assign(metadata, { name: "Bad_Name" }),
      () => Object.assign(metadata, { labels: { "bad key": "v", ok: "-bad-" } }),
      () => Object.assign(metadata, { annotations: { "a/b/c": "x" } }),
      () =>
        Object.assign(metadata, { finalizers: ["a/b/c", "example.com/ok", "orphan", "foregroundDeletion"] }),
      () => Object.assign(metadata, { finalizers: ["cleanup"] }),
      () =>
        Object.assign(metadata, { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x" }] }),
      () => Object.assign(metadata, { labels: { app: 5 } }),
      () => Object.assign(metadata, { creationTimestamp: "yesterday" }),
      () => Object.assign(metadata, { colour: "red" }),
      () => {
        delete metadata.name;
        metadata.generateName = "gen-";
      },
    ]);
    change?.();
    return "a metadata field";
  },
  // What the API server does to a CREATE before validating it (apiserver's own code paths): a
  // generateName cut to 58 characters before 5 random ones, generation set to 1, the request's
  // managedFields decoded by the field manager (dropped when it cannot).
  preparation(object, _schema, choose) {
    const metadata = object.metadata as Record<string, unknown>;
    const long = (n: number) => `g${"a".repeat(n - 2)}-`;
    const edges: [string, () => void][] = [
      ...[57, 58, 59, 62, 63, 64, 200, 249, 253].map((n): [string, () => void] => [
        `generateName of ${n} characters`,
        () => {
          delete metadata.name;
          metadata.generateName = long(n);
        },
      ]),
      [
        "generateName with a dot past 58",
        () => {
          delete metadata.name;
          metadata.generateName = `${"b".repeat(58)}.c`;
        },
      ],
      ["generation -1", () => Object.assign(metadata, { generation: -1 })],
      ["generation 7", () => Object.assign(metadata, { generation: 7 })],
      [
        "managedFields of an unknown operation",
        () => Object.assign(metadata, { managedFields: [{ manager: "m", operation: "Bogus" }] }),
      ],
      [
        "managedFields without fieldsType",
        () =>
          Object.assign(metadata, {
            managedFields: [{ manager: "m", operation: "Update", apiVersion: "v1" }],
          }),
      ],
      [
        "managedFields with a manager of 200 characters",
        () =>
          Object.assign(metadata, {
            managedFields: [
              {
                manager: "m".repeat(200),
                operation: "Update",
                apiVersion: "v1",
                fieldsType: "FieldsV1",
                fieldsV1: {},
              },
            ],
          }),
      ],
    ];
    const [name, apply] = choose.pick(edges) as [string, () => void];
    apply();
    return name;
  },
  null(object, schema, choose) {
    const node = choose.pick(nodes(schema, object).filter((n) => n.path.length > 1));
    if (!node) return undefined;
    setAt(object, node.path, null);
    return `${node.path.join(".")} null`;
  },
  unknown(object, schema, choose) {
    const node = choose.pick(
      nodes(schema, object).filter(
        (n) => n.value !== null && typeof n.value === "object" && !Array.isArray(n.value),
      ),
    );
    if (!node) return undefined;
    (node.value as Record<string, unknown>)[choose.pick(["colour", "relaseName", "specs"]) as string] = "x";
    return `an unknown field at ${node.path.join(".") || "the root"}`;
  },
  cel(object, _schema, choose) {
    const spec = object.spec as Record<string, unknown> | undefined;
    if (!spec || typeof spec !== "object") return undefined;
    const edges = [
      () => {
        spec.custom = { image: "x:1" };
        spec.helm ??= {
          chart: { repo: { url: "https://x", chart: "c" } },
          namespace: "n",
          cleanup: { removeNamespace: false, removePVCs: false },
        };
      },
      () => {
        delete spec.custom;
        delete spec.helm;
      },
      () => {
        const helm = spec.helm as Record<string, unknown> | undefined;
        if (helm) helm.releaseName = choose.pick(["Bad", "a-", "9lives", "ok-name"]);
      },
      () => {
        const chart = (spec.helm as { chart?: Record<string, unknown> } | undefined)?.chart;
        if (chart) chart.git = { repo: "https://example.com/c.git" };
      },
      () => {
        spec.mandatory = { version: "1.0.0" };
        spec.channels ??= [{ channel: "regular", version: "1.0.0" }];
      },
    ];
    choose.pick(edges)?.();
    return "the edge of a CEL rule";
  },
};

const mutationNames = Object.keys(mutations);

/**
 * Each kind's CEL rules tie fields together (exactly one of two, exactly one chart source), which a
 * schema-driven draw rarely meets; a draw is brought within them before any mutation, so that valid
 * objects are common and a mutation is what makes one invalid.
 */
function withinRules(object: Record<string, unknown>, choose: Choice): void {
  const spec = object.spec as Record<string, unknown> | undefined;
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) return;
  if (object.kind === "Module") {
    if (spec.helm && spec.custom) delete spec[choose.next() < 0.5 ? "helm" : "custom"];
    if (!spec.helm && !spec.custom) spec.custom = { image: "app:1" };
    const helm = spec.helm as Record<string, unknown> | undefined;
    const chart = helm?.chart as Record<string, unknown> | undefined;
    if (chart) {
      const sources = ["repo", "git", "configMap"].filter((source) => source in chart);
      const keep = choose.pick(sources) ?? "repo";
      for (const source of sources) if (source !== keep) delete chart[source];
      if (!(keep in chart)) chart.repo = { url: "https://charts.example.com", chart: "c" };
    }
    if (
      helm &&
      typeof helm.releaseName === "string" &&
      !/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(helm.releaseName)
    )
      helm.releaseName = "release";
  }
  if (object.kind === "ModuleReleaseMeta") {
    if ("mandatory" in spec && "channels" in spec)
      delete spec[choose.next() < 0.5 ? "mandatory" : "channels"];
    if (!("mandatory" in spec) && !("channels" in spec))
      spec.channels = [{ channel: "regular", version: "1.0.0" }];
  }
}

/**
 * `count` inputs, spread over the kinds: a third valid, the rest one mutation away; `updates` of them
 * (a share) UPDATE pairs whose old object is valid or one mutation away and whose new one differs by
 * one more mutation or by a harmless change (a label). Names are unique (`g<seed>-<i>`).
 */
export function generate(kinds: OfflineKind[], count: number, seed: number, updateShare = 0.2): Generated[] {
  const choose = chooser(seed);
  const perKind = kinds.map((kind) => ({
    kind,
    samples: fc.sample(arbitrary(kind.crdSchema as Schema), {
      seed: seed + kinds.indexOf(kind),
      numRuns: Math.ceil(count / kinds.length) + 1,
    }),
  }));
  const out: Generated[] = [];
  for (let i = 0; i < count; i++) {
    const { kind, samples } = perKind[i % perKind.length] as (typeof perKind)[number];
    const base = structuredClone(samples[Math.floor(i / perKind.length)] ?? samples[0]) as Record<
      string,
      unknown
    >;
    const object: Record<string, unknown> = {
      apiVersion: `${kind.kind.group}/${kind.kind.version}`,
      kind: kind.kind.kind,
      metadata: { name: `g${seed}-${i}`, namespace: choose.pick([`gen-${seed}-a`, `gen-${seed}-b`]) },
      ...base,
    };
    withinRules(object, choose);
    const mutate = (target: Record<string, unknown>, allowMetadata = true): string => {
      if (choose.next() < 0.3) return "valid";
      const names = allowMetadata
        ? mutationNames
        : mutationNames.filter((n) => n !== "metadata" && n !== "preparation");
      for (let attempt = 0; attempt < 4; attempt++) {
        const name = choose.pick(names) as string;
        const done = mutations[name]?.(target, kind.crdSchema as Schema, choose);
        if (done) return `${name}: ${done}`;
      }
      return "valid";
    };
    if (choose.next() < updateShare) {
      // The old object keeps its name and namespace: the update is of it.
      const oldMutation = mutate(object, false);
      const updated = structuredClone(object);
      const newMutation =
        choose.next() < 0.5
          ? (() => {
              (updated.metadata as Record<string, unknown>).labels = { changed: "yes" };
              return "a label added";
            })()
          : mutate(updated, false);
      out.push({
        name: `g${seed}-${i}`,
        kind,
        object: updated,
        oldObject: object,
        mutation: `UPDATE of ${oldMutation}: ${newMutation}`,
      });
    } else {
      out.push({ name: `g${seed}-${i}`, kind, object, mutation: mutate(object) });
    }
  }
  return out;
}
