import type { PatchOperation } from "../admission/json-patch.js";
import type { RuleActions } from "../admission/rule-actions.js";
import { admitOffline, type Problem } from "../offline/admit.js";
import { type Finding, findingField, findingOf, type ResourceRef } from "../offline/finding.js";
import { inputBoundProblem } from "../offline/input-bounds.js";
import { kindOf, nearMissOf, type OfflineKind, offlineKinds } from "../offline/kinds.js";
import type { Summary } from "./findings.js";
import { InputError, type Manifest, parseManifests } from "./manifests.js";
import type { YamlReader } from "./yaml-readings.js";

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
}

export interface Mutation {
  file: string;
  line: number;
  object: string;
  patch: PatchOperation[];
}

export interface BatchResult {
  findings: Finding[];
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
  const kinds = offlineKinds();
  const previous = new Map(
    batch.old
      .flatMap((input) => parseManifests(input.file, input.text, batch.yamlReader))
      .map((old) => [identity(old.object), old.object]),
  );
  const unreadable = batch.unreadable ?? [];
  const result: BatchResult = {
    findings: unreadable.map(inputErrorFinding),
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
      client: clientNames[batch.yamlReader ?? "gitops"],
    },
  };
  for (const input of batch.inputs) {
    let manifests: Manifest[];
    try {
      manifests = parseManifests(input.file, input.text, batch.yamlReader);
    } catch (error) {
      // One broken file is a finding at its line; every other file is still checked.
      if (!(error instanceof InputError)) throw error;
      result.failed = true;
      result.summary.unreadable++;
      result.findings.push(inputErrorFinding(error));
      onProgress(input.text.length);
      continue;
    }
    result.summary.objects += manifests.length;
    for (const manifest of manifests) {
      await validateManifest(manifest, kinds, previous, batch, result);
      onProgress(input.text.length / manifests.length);
    }
    if (manifests.length === 0) onProgress(input.text.length);
  }
  return result;
}

/** How the summary names the client whose request `validate` judged (`--yaml`). */
const clientNames: Record<YamlReader, string> = {
  kubectl: "as kubectl apply sends it",
  gitops: "as a GitOps tool sends it",
};

function inputErrorFinding(error: InputError): Finding {
  return {
    severity: "error",
    file: error.file,
    ...(error.line === undefined ? {} : { line: error.line }),
    rule: "input/Unreadable",
    message: error.reason,
  };
}

async function validateManifest(
  manifest: Manifest,
  kinds: OfflineKind[],
  previous: Map<string, unknown>,
  batch: Batch,
  result: BatchResult,
): Promise<void> {
  for (const reading of manifest.readings) {
    result.findings.push({
      severity: "warning",
      file: manifest.file,
      line: manifest.lineOf(reading.field),
      object: objectLabel(manifest.object),
      rule: "input/YamlReading",
      message: reading.field.isEmpty ? reading.message : `${reading.field}: ${reading.message}`,
    });
  }
  const bound = inputBoundProblem(manifest.object);
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
    return;
  }
  const kind = kindOf(kinds, manifest.object);
  if (!kind) {
    const nearMiss = nearMissOf(kinds, manifest.object);
    if (nearMiss) {
      result.denied = true;
      result.findings.push(unknownKindFinding(manifest, nearMiss, "input/UnknownVersionOrKind"));
      result.summary.checked++;
      result.summary.denied++;
      return;
    }
    const { apiVersion, kind: name } = manifest.object;
    // A file that is no manifest (package.json, a CI config) handed over by a hook's file pattern.
    const key =
      apiVersion === undefined && name === undefined
        ? "no apiVersion and kind"
        : `${String(apiVersion)} ${String(name)}`;
    result.summary.skipped[key] = (result.summary.skipped[key] ?? 0) + 1;
    if (batch.strict) {
      result.denied = true;
      const known = kinds.map((k) => `${k.kind.group}/${k.kind.version} ${k.kind.kind}`).join(", ");
      const message = `no schema for ${key} (--strict): validate knows ${known}`;
      result.findings.push(unknownKindFinding(manifest, message, "input/UnknownKind"));
    }
    return;
  }
  const old = previous.get(identity(manifest.object));
  const verdict = await admitOffline(
    kind,
    manifest.object,
    old,
    batch.ruleActions,
    batch.yamlReader ?? "gitops",
  );
  result.denied ||= !verdict.allowed;
  result.summary.checked++;
  if (!verdict.allowed) result.summary.denied++;
  if (verdict.warnings.length > 0) result.summary.warned++;
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
}

/** Objects are matched to their previous versions by apiVersion, kind, namespace and name. */
function identity(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return JSON.stringify([object.apiVersion, object.kind, metadata.namespace ?? "", metadata.name ?? ""]);
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
