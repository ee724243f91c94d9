import type { PatchOperation } from "../admission/json-patch.js";
import type { RuleActions } from "../admission/rule-actions.js";
import type { RuleStatus } from "../admission/rule-status.js";
import { type Finding, findingField, type ResourceRef } from "../base/finding.js";
import { limits } from "../base/limits.js";
import { inputBoundProblem } from "../manifests/input-bounds.js";
import { InputError } from "../manifests/input-error.js";
import { type Manifest, parseManifests } from "../manifests/manifests.js";
import { originPlacer } from "../manifests/origins.js";
import type { YamlReader } from "../manifests/yaml-readings.js";
import { defaultAddonConfigMap } from "../resources/addon-operator-configmap/index.js";
import { addonConfigMapNamespace, admitAddonConfigMap, type OfflineAddonOperator } from "./addon-operator.js";
import { admitOffline, defaultNamespace, type OfflineVerdict, type Problem } from "./admit.js";
import type { Client } from "./client.js";
import { findingOf } from "./finding-of.js";
import { kindOf, nearMissOf, type OfflineKind, offlineKinds } from "./kinds.js";
import { lookupNotMade, lookups, lookupsFromInput, lookupsFromObjects, type NotChecked } from "./lookups.js";
import { admitNatively } from "./native-admission.js";
import { withSkipped } from "./rule-statuses.js";
import type { Summary } from "./summary.js";

export interface Input {
  /** The name findings show: the path as given, or `<stdin>`. */
  file: string;
  text: string;
}

/** `validate`'s work: the inputs read, and the options that change what is reported. */
export interface Batch {
  inputs: Input[];
  /** Inputs named that could not be read (a missing file, a folder without permission). */
  unreadable?: InputError[];
  /** Previous versions of the objects (--old), matched by apiVersion, kind, namespace and name. */
  old: Input[];
  strict: boolean;
  showMutations: boolean;
  /** `--rule-action`: as `serve` takes it, so that validate answers as the cluster's webhook does. */
  ruleActions?: RuleActions;
  /** `--yaml`: which tool's YAML reading the objects are validated in (default gitops, YAML 1.2). */
  yamlReader?: YamlReader;
  /**
   * `--client`: what the client sends (kubectl apply, kubectl create, a GitOps tool); default the client
   * of `yamlReader` (kubectl reads as kubectl apply sends).
   */
  client?: Client;
  /**
   * `--cluster-objects`: what the cluster holds (Workspaces, ModuleTemplates). Given, serve's lookups are
   * made against them and the input's own objects; absent, they are not made, and the summary says so.
   */
  clusterObjects?: Input[];
  /** `--modules-dir` (and its companions): ConfigMap/addon-operator judged as `serve` judges it. */
  addonOperator?: OfflineAddonOperator;
  /** `--policies`: the native admission policies' verdict instead of the webhook's. */
  policies?: boolean;
  /** `--namespace`: where an object whose manifest names no namespace goes, as kubectl's (default `default`). */
  namespace?: string;
  /**
   * `--kustomization`: the directory kustomize built, which its origin annotations' paths start from
   * (default `.`): an object that has one is placed in its source file.
   */
  kustomization?: string;
  /** Reads a kustomize build's source file (bounded; an InputError when it cannot): without it, no origin is followed. */
  readSource?: (file: string) => string;
}

export interface Mutation {
  file: string;
  line: number;
  object: string;
  patch: PatchOperation[];
}

/** One object read, and what became of it: the findings about it, or why it was skipped. */
export interface ObjectOutcome {
  file: string;
  line: number;
  /** `Module default/redis`. */
  object: string;
  /** `apiVersion kind` of an object skipped for want of a schema (not --strict). */
  skipped?: string;
  findings: Finding[];
  /** What became of each webhook rule on it (judged: pass, fail, warn; or skipped, and why). */
  rules?: RuleStatus[];
  /** Seconds spent judging it. */
  seconds: number;
}

export interface BatchResult {
  findings: Finding[];
  /** Every object read, in order (JUnit's test cases). */
  objects: ObjectOutcome[];
  mutations: Mutation[];
  denied: boolean;
  /** Some input could not be read or parsed: its findings say where; `validate` exits 2. */
  failed: boolean;
  summary: Summary;
}

/**
 * Parses and validates every object of the batch's inputs. `onProgress` is told, after each object,
 * its share of its input's size, so progress moves through one large file as well as through many.
 */
export async function validateBatch(
  batch: Batch,
  onProgress: (bytes: number) => void = () => {},
): Promise<BatchResult> {
  const parsed = batch.inputs.map((input) => parseInput(input, batch.yamlReader));
  const given = batch.clusterObjects?.map((input) => parseInput(input, batch.yamlReader));
  // Lookups answered from the --cluster-objects files and the input's own objects (a Workspace applied
  // with its Modules exists when they are admitted); without --cluster-objects, from the input's alone,
  // and a lookup they cannot answer is named as not checked.
  const objectsOf = (inputs: ParsedInput[]) => inputs.flatMap((p) => p.manifests.map((m) => m.object));
  const fromInput = given === undefined ? lookupsFromInput(objectsOf(parsed)) : undefined;
  const kinds = offlineKinds(
    fromInput?.dependencies ?? lookupsFromObjects(objectsOf([...(given ?? []), ...parsed])),
  );
  const previous = new Map(
    batch.old
      .flatMap((input) => parseManifests(input.file, input.text, batch.yamlReader))
      .map((old) => [identity(old.object), old.object]),
  );
  const unreadable = [
    ...(batch.unreadable ?? []),
    ...(given ?? []).flatMap((p) => (p.error ? [p.error] : [])),
  ];
  const result: BatchResult = {
    findings: unreadable.map(inputErrorFinding),
    objects: [],
    mutations: [],
    denied: false,
    failed: unreadable.length > 0,
    summary: {
      files: batch.inputs.length,
      unreadable: unreadable.length,
      objects: 0,
      checked: 0,
      denied: 0,
      warned: 0,
      skipped: {},
      client: clientNames[clientOf(batch)],
    },
  };
  const placeInSource = batch.readSource
    ? originPlacer(batch.kustomization ?? ".", batch.yamlReader ?? "gitops", batch.readSource)
    : (manifest: Manifest) => manifest;
  for (const { input, manifests, error } of parsed) {
    if (error) {
      // One broken file is a finding at its line; every other file is still checked.
      result.failed = true;
      result.summary.unreadable++;
      result.findings.push(inputErrorFinding(error));
      onProgress(input.text.length);
      continue;
    }
    result.summary.objects += manifests.length;
    for (const manifest of manifests) {
      await judgeManifest(placeInSource(manifest), kinds, previous, batch, result);
      if (fromInput?.takeUnanswered()) notLookedUp(manifest.object, kinds, previous, batch, result);
      onProgress(input.text.length / manifests.length);
    }
    if (manifests.length === 0) onProgress(input.text.length);
  }
  return result;
}

/** How the summary names the client whose request `validate` judged (`--client`, `--yaml`). */
const clientNames: Record<Client, string> = {
  kubectl: "as kubectl apply sends it",
  "kubectl-create": "as kubectl create sends it",
  gitops: "as a GitOps tool sends it",
};

const clientOf = (batch: Batch): Client => batch.client ?? batch.yamlReader ?? "gitops";

interface ParsedInput {
  input: Input;
  manifests: Manifest[];
  error?: InputError;
}

function parseInput(input: Input, yamlReader: YamlReader | undefined): ParsedInput {
  try {
    return { input, manifests: parseManifests(input.file, input.text, yamlReader) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { input, manifests: [], error };
  }
}

function inputErrorFinding(error: InputError): Finding {
  return {
    severity: "error",
    file: error.file,
    ...(error.line === undefined ? {} : { line: error.line }),
    rule: "input/Unreadable",
    message: error.reason,
  };
}

/** Validates one object, and records it with its findings. */
async function judgeManifest(
  manifest: Manifest,
  kinds: OfflineKind[],
  previous: Map<string, unknown>,
  batch: Batch,
  result: BatchResult,
): Promise<void> {
  const first = result.findings.length;
  const started = performance.now();
  const { skipped, rules } = await validateManifest(manifest, kinds, previous, batch, result);
  result.objects.push({
    file: manifest.file,
    // Located when asked for: finding a line reads the document's layout, which most objects never need.
    get line() {
      return manifest.lineOf();
    },
    object: objectLabel(manifest.object),
    ...(skipped === undefined ? {} : { skipped }),
    findings: result.findings.slice(first),
    ...(rules === undefined ? {} : { rules }),
    seconds: (performance.now() - started) / 1000,
  });
}

/**
 * Validates one object; returns the `apiVersion kind` it was skipped as, when it was, and what became
 * of each webhook rule, when they were asked.
 */
async function validateManifest(
  manifest: Manifest,
  kinds: OfflineKind[],
  previous: Map<string, unknown>,
  batch: Batch,
  result: BatchResult,
): Promise<{ skipped?: string; rules?: RuleStatus[] }> {
  // A file that is no Kubernetes object (a CI workflow, package.json) is read by neither kubectl nor
  // kustomize: how they would read its values is no concern.
  const isObject = manifest.object.apiVersion !== undefined || manifest.object.kind !== undefined;
  const readings = isObject ? manifest.readings : [];
  for (const reading of readings) {
    result.findings.push({
      severity: "warning",
      file: manifest.file,
      line: manifest.lineOf(reading.field),
      object: objectLabel(manifest.object),
      rule: "input/YamlReading",
      message: reading.field.isEmpty ? reading.message : `${reading.field}: ${reading.message}`,
    });
  }
  // A document the plain block reader read has no alias and nests at most its 50 levels: its text's
  // length bounds the object's size, and within the limit there is nothing for the walk to find.
  const surelyFits = manifest.jsonBytesAtMost !== undefined && manifest.jsonBytesAtMost <= limits.objectBytes;
  const bound = surelyFits ? undefined : inputBoundProblem(manifest.object);
  if (bound) {
    result.denied = true;
    result.summary.checked++;
    result.summary.denied++;
    result.findings.push({
      severity: "error",
      file: manifest.file,
      line: manifest.lineOf(bound.field),
      object: objectLabel(manifest.object),
      rule: "input/TooLarge",
      message: bound.field.isEmpty ? bound.message : `${bound.field}: ${bound.message}`,
      ...findingField(bound.field),
      resource: resourceRef(manifest.object),
    });
    return {};
  }
  const addonNamespace = batch.addonOperator && addonConfigMapNamespace(batch.addonOperator, manifest.object);
  const kind = kindOf(kinds, manifest.object);
  if (!kind && !addonNamespace) {
    const nearMiss = nearMissOf(kinds, manifest.object);
    if (nearMiss) {
      result.denied = true;
      result.findings.push(unknownKindFinding(manifest, nearMiss, "input/UnknownVersionOrKind"));
      result.summary.checked++;
      result.summary.denied++;
      return {};
    }
    const { apiVersion, kind: name } = manifest.object;
    // A file that is no manifest (package.json, a CI config) handed over by a hook's file pattern.
    const key =
      apiVersion === undefined && name === undefined
        ? "no apiVersion and kind"
        : `${apiVersion === undefined ? "no apiVersion" : String(apiVersion)} ${name === undefined ? "no kind" : String(name)}`;
    result.summary.skipped[key] = (result.summary.skipped[key] ?? 0) + 1;
    if (!batch.addonOperator && isAddonOperatorConfigMap(manifest.object)) {
      noteNotChecked(result, {
        check: "ConfigMap/addon-operator",
        reason:
          "addon-operator's ConfigMap is judged against its modules: give --modules-dir (and --global-hooks-dir)",
      });
    }
    if (batch.strict) {
      result.denied = true;
      const known = kinds.map((k) => `${k.kind.group}/${k.kind.version} ${k.kind.kind}`).join(", ");
      const message = `no schema for ${key} (--strict): validate knows ${known}`;
      result.findings.push(unknownKindFinding(manifest, message, "input/UnknownKind"));
      return {};
    }
    return { skipped: key };
  }
  if (kind && kind.source.crd.scope === "Namespaced" && !namespaceIn(manifest.object)) {
    const namespace = batch.namespace ?? defaultNamespace;
    const unset = result.summary.withoutNamespace;
    result.summary.withoutNamespace = { namespace, objects: (unset?.objects ?? 0) + 1 };
  }
  const verdict = await admit(manifest, kind, addonNamespace, previous, batch);
  result.denied ||= !verdict.allowed;
  result.summary.checked++;
  if (!verdict.allowed) result.summary.denied++;
  // A reading two tools disagree on is a warning about the object, counted as the rules' warnings are.
  if (verdict.warnings.length > 0 || readings.length > 0) result.summary.warned++;
  const object = objectLabel(manifest.object);
  const place = (problem: Problem) => ({
    file: manifest.file,
    line: manifest.lineOf(problem.field),
    object,
    resource: resourceRef(manifest.object),
  });
  result.findings.push(...verdict.errors.map((p) => findingOf(p, "error", place(p))));
  result.findings.push(...verdict.warnings.map((p) => findingOf(p, "warning", place(p))));
  if (batch.showMutations && verdict.patch.length > 0) {
    result.mutations.push({ file: manifest.file, line: manifest.lineOf(), object, patch: verdict.patch });
  }
  return verdict.rules === undefined ? {} : { rules: verdict.rules };
}

async function admit(
  { object, jsonBytesAtMost }: Manifest,
  kind: OfflineKind | undefined,
  addonNamespace: string | undefined,
  previous: Map<string, unknown>,
  batch: Batch,
): Promise<OfflineVerdict> {
  // addon-operator's ConfigMap is one object: its old version given with or without its namespace.
  const namespace = batch.namespace ?? defaultNamespace;
  const old =
    addonNamespace === undefined
      ? oldVersionOf(object, previous, namespace)
      : (previous.get(identity(object, addonNamespace)) ?? previous.get(identity(object, "")));
  if (kind && batch.policies) return admitNatively(kind, object, old, batch.ruleActions);
  if (kind)
    return admitOffline(kind, object, old, batch.ruleActions, clientOf(batch), namespace, jsonBytesAtMost);
  // biome-ignore lint/style/noNonNullAssertion: only ConfigMap/addon-operator reaches here without a kind
  return admitAddonConfigMap(batch.addonOperator!, addonNamespace!, object, old, batch.ruleActions);
}

/**
 * The lookups serve would have made for this object, which validate could not (no --cluster-objects,
 * and the input does not hold what they look for): named in the summary, and the object's (the last
 * judged) rule skipped.
 */
function notLookedUp(
  object: Record<string, unknown>,
  kinds: OfflineKind[],
  previous: Map<string, unknown>,
  batch: Batch,
  result: BatchResult,
): void {
  const kind = kindOf(kinds, object);
  if (!kind) return;
  const operation =
    oldVersionOf(object, previous, batch.namespace ?? defaultNamespace) === undefined ? "CREATE" : "UPDATE";
  for (const lookup of lookups) {
    if (lookup.kind !== kind.kind.kind || !lookup.applies(object, operation)) continue;
    const note = lookupNotMade(lookup);
    noteNotChecked(result, note);
    const outcome = result.objects.at(-1);
    if (outcome?.rules) outcome.rules = withSkipped(outcome.rules, lookup.rule, "lookup", note.reason);
  }
}

/** One more object a check was not made for: named once per run, with the count. */
function noteNotChecked(result: BatchResult, note: Omit<NotChecked, "objects">): void {
  result.summary.notChecked ??= [];
  const counted = result.summary.notChecked.find((entry) => entry.check === note.check);
  if (counted) counted.objects++;
  else result.summary.notChecked.push({ ...note, objects: 1 });
}

/** addon-operator's ConfigMap by the name and namespace it has by default (or with no namespace). */
function isAddonOperatorConfigMap(object: Record<string, unknown>): boolean {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const { name, namespace } = defaultAddonConfigMap;
  return (
    object.apiVersion === "v1" &&
    object.kind === "ConfigMap" &&
    metadata.name === name &&
    (metadata.namespace ?? namespace) === namespace
  );
}

/** Objects are matched to their previous versions by apiVersion, kind, namespace and name. */
/**
 * The --old version of an object: the one of the same apiVersion, kind, namespace and name, where a
 * manifest that names no namespace is in the request's (`namespace`), on either side.
 */
function oldVersionOf(object: Record<string, unknown>, previous: Map<string, unknown>, namespace: string) {
  // Without --old nothing is looked up: no identity is written out (twice per object).
  if (previous.size === 0) return undefined;
  const own = namespaceIn(object);
  return (
    previous.get(identity(object)) ??
    (own === undefined ? previous.get(identity(object, namespace)) : undefined) ??
    (own === namespace ? previous.get(identity(object, "")) : undefined)
  );
}

/** The namespace a manifest names, if it names one. */
function namespaceIn(object: Record<string, unknown>): string | undefined {
  const namespace = (object.metadata as { namespace?: unknown } | undefined)?.namespace;
  return typeof namespace === "string" && namespace !== "" ? namespace : undefined;
}

function identity(object: Record<string, unknown>, namespace?: string): string {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const ns = namespace ?? metadata.namespace ?? "";
  return JSON.stringify([object.apiVersion, object.kind, ns, metadata.name ?? ""]);
}

/** `Module default/redis`, as kubectl names an object. */
export function objectLabel(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { name?: unknown; generateName?: unknown; namespace?: unknown };
  const name = String(metadata.name ?? metadata.generateName ?? "<unnamed>");
  return `${String(object.kind)} ${typeof metadata.namespace === "string" ? `${metadata.namespace}/` : ""}${name}`;
}

function resourceRef(object: Record<string, unknown>): ResourceRef {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    ...(typeof metadata.name === "string" ? { name: metadata.name } : {}),
    ...(typeof metadata.namespace === "string" ? { namespace: metadata.namespace } : {}),
  };
}

function unknownKindFinding(manifest: Manifest, message: string, rule: string): Finding {
  return {
    severity: "error",
    file: manifest.file,
    line: manifest.lineOf(),
    object: objectLabel(manifest.object),
    rule,
    message,
    resource: resourceRef(manifest.object),
  };
}
