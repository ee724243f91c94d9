import { readFileSync } from "node:fs";
import * as depth from "../../src/admission/depth.js";
import * as handler from "../../src/admission/handler.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { AdmissionResponse, AdmissionReview } from "../../src/admission/review.js";
import { WorkBudget } from "../../src/budget/work-budget.js";
import * as configMapKind from "../../src/resources/addon-operator-configmap/index.js";
import * as moduleIndex from "../../src/resources/module/index.js";
import * as releaseMetaIndex from "../../src/resources/modulereleasemeta/index.js";
import * as templateIndex from "../../src/resources/moduletemplate/index.js";
import * as workspaceIndex from "../../src/resources/workspace/index.js";
import { structureChecker } from "../../src/validation/structure.js";
import { corpusPath } from "./corpus.js";
import { kedaReleaseMeta } from "./modulereleasemetas.js";
import { helmModule } from "./modules.js";
import { kedaTemplate } from "./moduletemplates.js";
import { admissionReview } from "./reviews.js";
import { workspace } from "./workspaces.js";

/**
 * The complexity fuzz of issue 21: for each kind, every array, map and string field its schema has is
 * grown by steps of 10x, and the cost of judging each review (JSON parsing included, as the server
 * does) is measured. Work that grows faster than the input, or a review over the bound, shows here.
 */
type Json = Record<string, unknown>;

export interface FuzzKind {
  name: string;
  /** The handler that judges its reviews (from the sources or the build), and the server's depth scan. */
  validate: typeof handler.validate;
  vouchForDepth: typeof depth.vouchForDepth;
  kind: ResourceKind;
  base: () => Json;
  /** The kind's editor schema (none for the ConfigMap: its data is a map of strings). */
  schema?: Json;
  review: (object: unknown) => AdmissionReview;
  /** Reads the real-data corpus (deckhouse's modules tree): skipped without it. */
  readsCorpus?: true;
}

const schemaOf = (file: string): Json =>
  JSON.parse(readFileSync(new URL(`../../schemas/dist/${file}.schema.json`, import.meta.url), "utf8"));

const kyma = (kind: string, resource: string) => (object: unknown) =>
  admissionReview({
    operation: "CREATE",
    object,
    group: "operator.kyma-project.io",
    version: "v1beta2",
    kind,
    resource,
  });

/** The webhook's code the fuzz judges with: the sources (as tests run them) or the build (dist/). */
export interface Implementation {
  validate: typeof handler.validate;
  vouchForDepth: typeof depth.vouchForDepth;
  moduleKind: typeof moduleIndex.moduleKind;
  workspaceKind: typeof workspaceIndex.workspaceKind;
  moduleTemplateKind: typeof templateIndex.moduleTemplateKind;
  moduleReleaseMetaKind: typeof releaseMetaIndex.moduleReleaseMetaKind;
  addonOperatorConfigMapKind: typeof configMapKind.addonOperatorConfigMapKind;
}

const sources: Implementation = {
  validate: handler.validate,
  vouchForDepth: depth.vouchForDepth,
  moduleKind: moduleIndex.moduleKind,
  workspaceKind: workspaceIndex.workspaceKind,
  moduleTemplateKind: templateIndex.moduleTemplateKind,
  moduleReleaseMetaKind: releaseMetaIndex.moduleReleaseMetaKind,
  addonOperatorConfigMapKind: configMapKind.addonOperatorConfigMapKind,
};

/**
 * The build's code (`npm run compile` first), as `serve` runs it: tsx keeps every function's name with a
 * helper call, which a closure made per item pays for (it doubled some reviews' CPU under tsx).
 */
export async function builtImplementation(): Promise<Implementation> {
  const from = (path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href);
  return {
    validate: (await from("admission/handler.js")).validate,
    vouchForDepth: (await from("admission/depth.js")).vouchForDepth,
    moduleKind: (await from("resources/module/index.js")).moduleKind,
    workspaceKind: (await from("resources/workspace/index.js")).workspaceKind,
    moduleTemplateKind: (await from("resources/moduletemplate/index.js")).moduleTemplateKind,
    moduleReleaseMetaKind: (await from("resources/modulereleasemeta/index.js")).moduleReleaseMetaKind,
    addonOperatorConfigMapKind: (await from("resources/addon-operator-configmap/index.js"))
      .addonOperatorConfigMapKind,
  };
}

export function fuzzKinds(code: Implementation = sources): FuzzKind[] {
  const { moduleKind, workspaceKind, moduleTemplateKind, moduleReleaseMetaKind, addonOperatorConfigMapKind } =
    code;
  const modulesDir = corpusPath("addon-operator/deckhouse-v1.43.1/modules");
  const configMap = { namespace: "d8-system", name: "deckhouse" };
  return [
    {
      name: "Module",
      validate: code.validate,
      vouchForDepth: code.vouchForDepth,
      kind: moduleKind,
      base: () => helmModule() as unknown as Json,
      schema: schemaOf("module"),
      review: (object) => admissionReview({ operation: "CREATE", object }),
    },
    {
      name: "Workspace",
      validate: code.validate,
      vouchForDepth: code.vouchForDepth,
      kind: workspaceKind,
      base: () => workspace() as Json,
      schema: schemaOf("workspace"),
      review: (object) =>
        admissionReview({ operation: "CREATE", object, kind: "Workspace", resource: "workspaces" }),
    },
    {
      name: "ModuleTemplate",
      validate: code.validate,
      vouchForDepth: code.vouchForDepth,
      kind: moduleTemplateKind,
      base: () => kedaTemplate() as unknown as Json,
      schema: schemaOf("moduletemplate"),
      review: kyma("ModuleTemplate", "moduletemplates"),
    },
    {
      name: "ModuleReleaseMeta",
      validate: code.validate,
      vouchForDepth: code.vouchForDepth,
      kind: moduleReleaseMetaKind,
      base: () => kedaReleaseMeta() as unknown as Json,
      schema: schemaOf("modulereleasemeta"),
      review: kyma("ModuleReleaseMeta", "modulereleasemetas"),
    },
    {
      name: "ConfigMap/addon-operator",
      validate: code.validate,
      vouchForDepth: code.vouchForDepth,
      kind: addonOperatorConfigMapKind({ modulesDir, configMap }),
      readsCorpus: true,
      base: () => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { ...configMap },
        data: {
          global: "modules:\n  publicDomainTemplate: '%s.example.com'\n",
          userAuthn: "publishAPI:\n  enable: true\n",
        },
      }),
      review: (object) =>
        admissionReview({
          operation: "CREATE",
          object,
          group: "",
          version: "v1",
          kind: "ConfigMap",
          resource: "configmaps",
        }),
    },
  ];
}

/** A field to grow: where, and how (more items, more keys, longer text). */
export interface Growth {
  path: string[];
  shape: "array" | "map" | "string";
}

/** Every array, map and string field of the schema, to `maxDepth` levels (the ConfigMap: its data). */
export function growthsOf(kind: FuzzKind, maxDepth = 8): Growth[] {
  if (!kind.schema)
    return [
      { path: ["data"], shape: "map" },
      { path: ["data", "userAuthn"], shape: "string" },
      { path: ["data", "global"], shape: "string" },
    ];
  const found: Growth[] = [];
  const walk = (schema: Json | undefined, path: string[]) => {
    if (!schema || path.length > maxDepth) return;
    const type = schema.type;
    if (type === "array") found.push({ path, shape: "array" });
    else if (type === "string") found.push({ path, shape: "string" });
    else if (schema.additionalProperties || schema["x-kubernetes-preserve-unknown-fields"]) {
      found.push({ path, shape: "map" });
    }
    for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      walk(child, [...path, key]);
    }
  };
  walk(kind.schema, []);
  return found.filter(
    (growth) => growth.path.length > 0 && !["apiVersion", "kind"].includes(growth.path[0] ?? ""),
  );
}

/** The base object with the field at `growth.path` grown to `n` items, keys or characters. */
export function grown(kind: FuzzKind, growth: Growth, n: number): Json {
  const object = kind.base();
  let parent: Json = object;
  for (const key of growth.path.slice(0, -1)) {
    const next = parent[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) parent[key] = {};
    parent = parent[key] as Json;
  }
  const key = growth.path.at(-1) as string;
  const current = parent[key];
  if (growth.shape === "string")
    parent[key] = `${typeof current === "string" ? current : "a"}${"x".repeat(n)}`;
  else if (growth.shape === "map") {
    const sample =
      current && typeof current === "object" && !Array.isArray(current)
        ? Object.values(current)[0]
        : undefined;
    parent[key] = Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`k${i}`, sample ?? (kind.schema ? i : `a: ${i}\n`)]),
    );
  } else {
    const sample = Array.isArray(current) && current.length > 0 ? current[0] : "a";
    parent[key] = Array.from({ length: n }, (_, i) => varied(sample, i));
  }
  // The ConfigMap's sections are judged once and remembered across reviews (by their text): each
  // object gets sections of its own, or a repeated measurement would time the cache.
  if (!kind.schema && isJson(object.data)) {
    const salt = ++salted;
    for (const [name, text] of Object.entries(object.data))
      if (typeof text === "string") object.data[name] = `${text}\n# ${salt}\n`;
  }
  return object;
}

let salted = 0;
const isJson = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A copy of an item whose names differ by `i` (so that uniqueness rules see n items, not one). */
function varied(item: unknown, i: number): unknown {
  if (typeof item === "string") return `${item}${i}`;
  if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
  const copy = structuredClone(item) as Json;
  for (const name of ["name", "alias", "channel"])
    if (typeof copy[name] === "string") copy[name] = `${copy[name]}${i}`;
  return copy;
}

export interface Measurement {
  kind: string;
  field: string;
  shape: Growth["shape"];
  n: number;
  bodyBytes: number;
  cpuMs: number;
  response: AdmissionResponse;
  /**
   * Whether the object passes the kind's CRD schema (its generated editor schema), when asked: only
   * such an object reaches a validating webhook through the API server (100 ms bound, not 250 ms).
   */
  passesCrd?: boolean;
}

const crdCheckers = new WeakMap<FuzzKind, ReturnType<typeof structureChecker>>();

/** Whether `object` passes the kind's CRD schema (the ConfigMap, whose data are strings: always). */
export function passesCrd(kind: FuzzKind, object: unknown): boolean {
  if (!kind.schema) return true;
  let check = crdCheckers.get(kind);
  if (!check) {
    check = structureChecker(kind.schema);
    crdCheckers.set(kind, check);
  }
  return check(object, new WorkBudget()).errors.length === 0;
}

/** The review's body as the API server would send it. */
export function reviewBody(kind: FuzzKind, growth: Growth, n: number): string {
  return JSON.stringify(kind.review(grown(kind, growth, n)));
}

/** One review judged as the server judges it: the body parsed and scanned, then the handler; its CPU time. */
export async function measure(
  kind: FuzzKind,
  growth: Growth,
  n: number,
  options: { crd?: boolean } = {},
): Promise<Measurement> {
  const object = grown(kind, growth, n);
  const body = JSON.stringify(kind.review(object));
  const started = process.cpuUsage();
  const review = JSON.parse(body) as AdmissionReview;
  // As the server does: the body's brackets scanned once, so that the depth check need not walk.
  kind.vouchForDepth(body, review.request?.object, review.request?.oldObject);
  const response = await kind.validate(kind.kind, review.request as NonNullable<AdmissionReview["request"]>);
  const used = process.cpuUsage(started);
  return {
    kind: kind.name,
    field: growth.path.join("."),
    shape: growth.shape,
    n,
    bodyBytes: body.length,
    cpuMs: (used.user + used.system) / 1000,
    response,
    ...(options.crd ? { passesCrd: passesCrd(kind, object) } : {}),
  };
}

/** Judges the base object once: the first review of a kind compiles its checkers and loads its schemas. */
export async function warmUp(kind: FuzzKind): Promise<void> {
  const review = kind.review(kind.base());
  await kind.validate(kind.kind, review.request as NonNullable<AdmissionReview["request"]>);
}
