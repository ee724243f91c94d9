import { writeJson } from "../../src/base/exact-json.js";
import { admitOffline, type OfflineVerdict } from "../../src/offline/admit.js";
import type { Client } from "../../src/offline/client.js";
import { sentBy } from "../../src/offline/client.js";
import type { OfflineKind } from "../../src/offline/kinds.js";
import type { ApiAnswer, ApiClient } from "./api-client.js";

/**
 * One verdict in a form both sides can be compared in: admitted or not; a request refused whole (its
 * message); each cause as `reason | field | message`; each warning's text; the object as stored.
 */
export interface Verdict {
  allowed: boolean;
  refused?: string;
  causes: string[];
  warnings: string[];
  stored?: unknown;
}

/** What the test sends: an object of a kind, as a client sends it, perhaps as an update of a stored one. */
export interface Probe {
  name: string;
  kind: OfflineKind;
  object: Record<string, unknown>;
  /** For an UPDATE: the object as the cluster holds it (read back from the API server). */
  stored?: Record<string, unknown>;
  client: Client;
}

export function resourcePath(kind: OfflineKind, namespace: string | undefined, name?: string): string {
  const { group, version } = kind.kind;
  const scope = kind.source.crd.scope === "Namespaced" ? `/namespaces/${namespace ?? "default"}` : "";
  return `/apis/${group}/${version}${scope}/${kind.source.crd.names.plural}${name ? `/${name}` : ""}`;
}

function metadataOf(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = object.metadata;
  return metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)
    ? (metadata as Record<string, unknown>)
    : {};
}

/**
 * The real API server's verdict: a server-side dry-run create (or update of the stored object), the
 * body as the client sends it (kubectl apply's: null fields dropped, last-applied recorded, strict
 * field validation; a GitOps tool's: as it is, the server's default field validation).
 */
export async function serverVerdict(api: ApiClient, probe: Probe): Promise<Verdict> {
  const namespaced = probe.kind.source.crd.scope === "Namespaced";
  const body = sentBy(probe.client, probe.object, namespaced);
  const query: Record<string, string> = { dryRun: "All" };
  if (probe.client === "kubectl") query.fieldValidation = "Strict";
  const meta = metadataOf(body);
  const namespace = typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : "default";
  const answer = probe.stored
    ? await api.request(
        "PUT",
        resourcePath(probe.kind, namespace, String(metadataOf(probe.stored).name)),
        body,
        query,
      )
    : await api.request("POST", resourcePath(probe.kind, namespace), body, query);
  return fromAnswer(answer);
}

interface Status {
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; field?: string; message?: string }[] };
}

export function fromAnswer(answer: ApiAnswer): Verdict {
  if (answer.status === 200 || answer.status === 201) {
    return { allowed: true, causes: [], warnings: answer.warnings, stored: answer.body };
  }
  const status = (answer.body ?? {}) as Status;
  const causes = status.details?.causes ?? [];
  if (answer.status === 422 && causes.length > 0) {
    return {
      allowed: false,
      causes: causes.map((cause) => {
        const message = cause.field ? `${cause.field}: ${cause.message}` : String(cause.message);
        return `${cause.reason} | ${message}`;
      }),
      warnings: answer.warnings,
    };
  }
  return {
    allowed: false,
    refused: `${answer.status} ${status.reason ?? ""}: ${status.message ?? writeJson(answer.body)}`,
    causes: [],
    warnings: answer.warnings,
  };
}

/** `validate`'s verdict on the same probe. */
export async function offlineVerdict(probe: Probe): Promise<Verdict> {
  const verdict: OfflineVerdict = await admitOffline(
    probe.kind,
    probe.object,
    probe.stored,
    undefined,
    probe.client,
  );
  const refusal = verdict.errors.find((error) => error.stage === "decode");
  const warnings = verdict.warnings.map((warning) => warning.message);
  const codes: Record<string, number> = { BadRequest: 400, NotFound: 404, RequestEntityTooLarge: 413 };
  if (refusal) {
    const refused = `${codes[refusal.type] ?? "?"} ${refusal.type}: ${refusal.message}`;
    return { allowed: false, refused, causes: [], warnings };
  }
  return {
    allowed: verdict.allowed,
    causes: verdict.errors.map((error) => `${error.type} | ${error.message}${webhookRule(error)}`),
    warnings,
    ...(verdict.stored ? { stored: verdict.stored } : {}),
  };
}

/**
 * The rule a webhook's answer names after its message; a CRD rule's error names it in its own message
 * (and carries it beside the message for validate's findings).
 */
export function webhookRule(error: Pick<OfflineVerdict["errors"][number], "rule" | "stage">): string {
  return error.rule && error.stage !== "cel" ? ` (rule ${error.rule})` : "";
}

/** Metadata the API server sets on every object it stores, which `validate` does not invent. */
const serverSet = ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"];

/**
 * The differences between the two verdicts, as lines (none: they agree). Causes and warnings compare as
 * multisets (the API server's order follows Go's map iteration); what is random on both sides (the five
 * characters a generateName gets, a generated release name) is masked.
 */
export function differences(probe: Pick<Probe, "object">, server: Verdict, offline: Verdict): string[] {
  const mask = masker(probe);
  const lines: string[] = [];
  if (server.allowed !== offline.allowed)
    lines.push(
      `verdict: server ${server.allowed ? "admits" : "denies"}, validate ${offline.allowed ? "admits" : "denies"}`,
    );
  if (mask(server.refused ?? "") !== mask(offline.refused ?? ""))
    lines.push(
      `refused: server ${JSON.stringify(server.refused)}, validate ${JSON.stringify(offline.refused)}`,
    );
  lines.push(...multisetDifference("cause", server.causes.map(mask), offline.causes.map(mask)));
  lines.push(...multisetDifference("warning", server.warnings.map(mask), offline.warnings.map(mask)));
  if (server.allowed && offline.allowed) {
    const serverStored = writeJson(sortedKeys(storedView(server.stored, probe)));
    const offlineStored = writeJson(sortedKeys(storedView(offline.stored, probe)));
    if (mask(serverStored) !== mask(offlineStored))
      lines.push(`stored object: server ${mask(serverStored)}\n  validate ${mask(offlineStored)}`);
  }
  return lines;
}

function multisetDifference(what: string, server: string[], offline: string[]): string[] {
  const left = [...offline];
  const onlyServer: string[] = [];
  for (const item of server) {
    const at = left.indexOf(item);
    if (at >= 0) left.splice(at, 1);
    else onlyServer.push(item);
  }
  return [
    ...onlyServer.map((item) => `${what} only from the server: ${item}`),
    ...left.map((item) => `${what} only from validate: ${item}`),
  ];
}

/** The stored object without what only the server sets, generated names and release names masked. */
function storedView(stored: unknown, probe: Pick<Probe, "object">): unknown {
  if (stored === null || typeof stored !== "object") return stored;
  const copy = structuredClone(stored) as Record<string, unknown>;
  const metadata = metadataOf(copy);
  for (const key of serverSet) delete metadata[key];
  const spec = copy.spec as { helm?: { releaseName?: unknown } } | undefined;
  const given = (probe.object.spec as { helm?: { releaseName?: unknown } } | undefined)?.helm?.releaseName;
  if (spec?.helm && given === undefined && typeof spec.helm.releaseName === "string") {
    spec.helm.releaseName = "<generated>";
  }
  return copy;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** Masks the random suffix the API server gives a generateName, and release names it generates. */
function masker(probe: Pick<Probe, "object">): (text: string) => string {
  // The server cuts a generateName to 58 characters before it adds 5.
  const given = metadataOf(probe.object).generateName;
  const generateName = typeof given === "string" ? given.slice(0, 58) : "";
  const escaped = generateName !== "" ? escapeRegExp(generateName) : undefined;
  const prefix = escaped ? new RegExp(`${escaped}[bcdfghjklmnpqrstvwxz2456789]{5}`, "g") : undefined;
  return (text) => {
    let masked = prefix ? text.replace(prefix, `${generateName}*****`) : text;
    masked = masked.replace(/-[a-z0-9]{11}\b/g, "-<random>");
    return masked;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
