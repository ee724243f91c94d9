import type { Client } from "../../src/offline/client.js";
import { kindOf, type OfflineKind } from "../../src/offline/kinds.js";
import { helmModule } from "../support/modules.js";
import type { ApiClient } from "./api-client.js";
import { generate } from "./generator.js";
import type { Input } from "./inputs.js";
import { type Legacy, storeLegacy } from "./legacy-store.js";
import { differences, offlineVerdict, type Probe, serverVerdict, type Verdict } from "./verdicts.js";

/** One probe judged both ways, and how they differ (nothing: they agree). */
export interface Judged {
  probe: Probe;
  server: Verdict;
  offline: Verdict;
  differences: string[];
  /** The documented limit that explains the differences, if one does. */
  limit?: string;
}

/**
 * The documented limits of `validate` (docs/ci.md), each with how to recognize it: a difference a
 * limit explains is counted apart, any other is a failure.
 */
const limits: { name: string; applies: (judged: Omit<Judged, "limit">) => boolean }[] = [
  {
    // kube-apiserver builds every one of 300,000 field errors and runs out of its request timeout
    // (a 504, or the connection closed when the timeout is short); validate stops building at 100
    // and counts the rest. Both deny.
    name: "an object with hundreds of thousands of errors times out in the API server; validate lists 100 and counts the rest",
    applies: ({ server, offline }) =>
      /^(504 Timeout|0 .*connection closed)/.test(server.refused ?? "") && !offline.allowed,
  },
  {
    // A legacy object's value of the wrong type (kept through ratcheting) is converted for CEL only when
    // a rule reads it; inside an equality of two objects kube-apiserver reads the fields in Go's random
    // map order, stopping at the first unequal one, and an error on the other side of == reads as
    // unequal: whether the rule fails with the conversion error or plainly is not deterministic there.
    // validate reports the conversion error wherever the rule reads the value. Both deny.
    name: "a legacy value of the wrong type read inside an object equality: the conversion error or the plain failure (Go's map order); both deny",
    applies: ({ probe, server, offline, differences }) => {
      if (probe.stored === undefined || server.allowed || offline.allowed) return false;
      const conversion = /invalid data, /;
      const ruleOf = (line: string) =>
        /\(rule [^)]+\)$/.exec(line)?.[0] ?? line.replace(/^.*evaluating rule: /, "");
      const converted = differences.filter((line) => conversion.test(line)).map(ruleOf);
      return (
        converted.length > 0 &&
        differences.every(
          (line) =>
            line.startsWith("cause only from") && (conversion.test(line) || converted.includes(ruleOf(line))),
        )
      );
    },
  },
  {
    // Not validate's limit but the HTTP stand-in's: it sends the body kubectl would send, where the
    // real kubectl stops first (its own ObjectMeta decoding); the real kubectl is checked apart.
    // Nor does kubectl apply send an object without a name (a generateName): it looks the object up first.
    name: "kubectl refuses metadata it cannot decode, or apply an unnamed object, before sending it (checked with the real kubectl)",
    applies: ({ probe, server, offline }) =>
      probe.client === "kubectl" &&
      (/KubectlApply/.test(offline.refused ?? "") ||
        (/KubectlDecode/.test(offline.refused ?? "") && !server.allowed)),
  },
];

/** Namespaces the probes are created in (valid names only: an invalid one is a case of its own). */
export async function createNamespaces(api: ApiClient, names: Iterable<string>): Promise<void> {
  for (const name of new Set(names)) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63) continue;
    const answer = await api.request("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
    });
    if (answer.status >= 300 && answer.status !== 409) throw new Error(`namespace ${name}: ${answer.status}`);
  }
}

export const namespaceOf = (object: Record<string, unknown>): string => {
  const metadata = (object.metadata ?? {}) as { namespace?: unknown };
  return typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : "default";
};

/** Judges probes both ways, in parallel (the client bounds requests in flight). */
export async function judgeAll(api: ApiClient, probes: Probe[]): Promise<Judged[]> {
  return Promise.all(
    probes.map(async (probe) => {
      const [server, offline] = await Promise.all([serverVerdict(api, probe), offlineVerdict(probe)]);
      const judged = { probe, server, offline, differences: differences(probe, server, offline) };
      const limit = judged.differences.length > 0 ? limits.find((l) => l.applies(judged))?.name : undefined;
      return { ...judged, ...(limit ? { limit } : {}) };
    }),
  );
}

/** CREATE probes of the inputs that have no old object. */
export function createProbes(kinds: OfflineKind[], inputs: Input[], client: Client): Probe[] {
  return inputs
    .filter((input) => !input.oldObject)
    .map((input) => ({
      name: input.name,
      kind: kindOf(kinds, input.object) as OfflineKind,
      object: input.object,
      client,
    }));
}

const withNamespace = (object: Record<string, unknown>, namespace: string) => ({
  ...object,
  metadata: { ...(object.metadata as object), namespace },
});

/**
 * The UPDATE inputs, their old objects stored as a cluster comes to hold them (legacy-store.ts), each
 * pair in a namespace of its own (`<prefix>-<i>`) so that equal names do not meet (no prefix: their own
 * namespaces, their names being unique). Returns for each
 * its new object (with the stored object's resourceVersion, as a client updating it sends) and the
 * stored object as the API server reads it.
 */
export async function storedUpdates(
  api: ApiClient,
  kinds: OfflineKind[],
  inputs: Input[],
  prefix: string | undefined,
): Promise<
  { name: string; kind: OfflineKind; object: Record<string, unknown>; stored: Record<string, unknown> }[]
> {
  const updates = inputs
    .filter((input) => input.oldObject)
    .map((input, i) => ({
      ...input,
      namespace: prefix === undefined ? namespaceOf(input.object) : `${prefix}-${i}`,
    }));
  await createNamespaces(
    api,
    updates.map((u) => u.namespace),
  );
  const module = kinds.find((kind) => kind.kind.kind === "Module") as OfflineKind;
  const outOfRange = helmModule();
  outOfRange.spec.config = { ...outOfRange.spec.config, replicas: 99 };
  const probes = {
    strict: { kind: module, object: { ...helmModule(), spec: "not an object" } as Record<string, unknown> },
    webhook: { kind: module, object: outOfRange as unknown as Record<string, unknown> },
  };
  const legacies: Legacy[] = updates.map((u) => ({
    kind: kindOf(kinds, u.oldObject) as OfflineKind,
    object: withNamespace(u.oldObject as Record<string, unknown>, u.namespace),
  }));
  const stored = await storeLegacy(api, legacies, probes);
  return updates.map((u, i) => {
    const old = stored[i] as Record<string, unknown>;
    const object = withNamespace(u.object, u.namespace);
    const resourceVersion = (old.metadata as { resourceVersion?: unknown }).resourceVersion;
    return {
      name: u.name,
      kind: kindOf(kinds, object) as OfflineKind,
      object: { ...object, metadata: { ...object.metadata, resourceVersion } },
      stored: old,
    };
  });
}

/** Counts for the report: probes, agreements, differences explained by a limit, unexplained ones. */
export function tally(judged: Judged[]) {
  const differing = judged.filter((j) => j.differences.length > 0);
  return {
    probes: judged.length,
    denied: judged.filter((j) => !j.server.allowed).length,
    warned: judged.filter((j) => j.server.warnings.length > 0).length,
    limits: differing.filter((j) => j.limit).length,
    byLimit: countBy(differing.flatMap((j) => (j.limit ? [j.limit] : []))),
    unexplained: differing.filter((j) => !j.limit),
  };
}

function countBy(names: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** A failure message naming each unexplained difference (the first lines of each). */
export function report(unexplained: Judged[]): string {
  return unexplained
    .map(
      (j) =>
        `${j.probe.name} (${j.probe.client}):\n  ${j.differences
          .slice(0, 8)
          .map((l) => l.slice(0, 2000))
          .join("\n  ")}`,
    )
    .join("\n");
}

/** The generated differential's outcome: counts per part, and what differed. */
export interface GeneratedOutcome {
  objects: number;
  creates: ReturnType<typeof tally>;
  updates: ReturnType<typeof tally>;
  pairs: number;
  mutations: Record<string, number>;
}

/**
 * `count` objects generated from the kinds' schemas (generator.ts), each as a GitOps tool and as
 * kubectl apply sends it: the CREATEs by server-side dry run, the UPDATE pairs against their old
 * objects stored as legacy objects.
 */
export async function generatedDifferential(
  api: ApiClient,
  kinds: OfflineKind[],
  count: number,
  seed: number,
): Promise<GeneratedOutcome> {
  const inputs = generate(kinds, count, seed);
  await createNamespaces(
    api,
    inputs.map((input) => namespaceOf(input.object)),
  );
  const creates = await judgeAll(
    api,
    (["gitops", "kubectl"] as const).flatMap((client) => createProbes(kinds, inputs, client)),
  );
  const updates = await storedUpdates(api, kinds, inputs, undefined);
  const updated = await judgeAll(
    api,
    (["gitops", "kubectl"] as const).flatMap((client) => updates.map((update) => ({ ...update, client }))),
  );
  const mutations: Record<string, number> = {};
  for (const input of inputs) {
    const name =
      (input.mutation.startsWith("UPDATE") ? "UPDATE " : "") +
      (input.mutation.split(":")[0] ?? "").replace(/^UPDATE of /, "");
    mutations[name] = (mutations[name] ?? 0) + 1;
  }
  return {
    objects: inputs.length,
    creates: tally(creates),
    updates: tally(updated),
    pairs: updates.length,
    mutations,
  };
}
