import type { OfflineKind } from "../../src/offline/kinds.js";
import { eventually } from "../support/eventually.js";
import type { ApiClient } from "./api-client.js";
import { resourcePath } from "./verdicts.js";

/** An object to store as a cluster comes to hold one that today's CRD and webhooks refuse. */
export interface Legacy {
  kind: OfflineKind;
  object: Record<string, unknown>;
}

const crdPath = (kind: OfflineKind) =>
  `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${kind.source.crd.names.plural}.${kind.kind.group}`;

const webhookKinds = [
  "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
  "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
];

type KubeObject = Record<string, unknown> & { metadata: Record<string, unknown> };

/** An object as it can be created again: without what the server set on it. */
function recreatable(object: KubeObject): KubeObject {
  const {
    resourceVersion: _r,
    uid: _u,
    creationTimestamp: _c,
    managedFields: _m,
    generation: _g,
    ...metadata
  } = object.metadata;
  return { ...object, metadata };
}

async function ok(answer: Promise<{ status: number; body: unknown }>, what: string) {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body).slice(0, 500)}`);
  return body as KubeObject;
}

/**
 * Stores each object the way a real cluster comes to hold what today's rules refuse: created while
 * the CRD was an older, looser one (any spec) and before the webhooks were registered, then the CRD
 * and the webhooks upgraded to today's. An object with a deletionTimestamp is created with its
 * finalizers and then deleted, so that it waits on them. Returns each as the API server now reads it.
 * `strictProbe` is an object today's CRD refuses and `webhookProbe` one only the webhooks refuse: each
 * switch is waited on through them (the API server applies CRD and webhook changes asynchronously).
 */
export async function storeLegacy(
  api: ApiClient,
  legacies: Legacy[],
  probes: { strict: Legacy; webhook: Legacy },
): Promise<Record<string, unknown>[]> {
  const kinds = [...new Set(legacies.map((l) => l.kind).concat(probes.strict.kind, probes.webhook.kind))];
  const crds = new Map<OfflineKind, KubeObject>();
  for (const kind of kinds) crds.set(kind, await ok(api.request("GET", crdPath(kind)), "reading the CRD"));
  const webhooks: { path: string; object: KubeObject }[] = [];
  for (const path of webhookKinds) {
    const list = await ok(api.request("GET", path), "listing webhook configurations");
    for (const item of (list.items ?? []) as KubeObject[]) webhooks.push({ path, object: item });
  }
  const admitted = async (probe: Legacy) => {
    const meta = probe.object.metadata as Record<string, unknown>;
    const answer = await api.request(
      "POST",
      resourcePath(probe.kind, meta.namespace as string),
      probe.object,
      {
        dryRun: "All",
      },
    );
    return answer.status < 300;
  };

  try {
    // The past: a looser CRD, no webhooks.
    for (const { path, object } of webhooks)
      await ok(api.request("DELETE", `${path}/${object.metadata.name}`), "removing a webhook configuration");
    for (const [kind, crd] of crds)
      await ok(api.request("PUT", crdPath(kind), loosened(crd)), "loosening the CRD");
    await eventually(
      "the looser CRD and no webhooks in effect",
      async () => (await admitted(probes.strict)) && (await admitted(probes.webhook)),
    );
    await Promise.all(
      legacies.map(async (legacy) => {
        const meta = legacy.object.metadata as Record<string, unknown>;
        const { deletionTimestamp, ...created } = meta;
        const path = resourcePath(legacy.kind, meta.namespace as string);
        await ok(api.request("POST", path, { ...legacy.object, metadata: created }), `storing ${meta.name}`);
        if (deletionTimestamp)
          await ok(api.request("DELETE", `${path}/${meta.name}`), `deleting ${meta.name}`);
      }),
    );
  } finally {
    // Today: the CRD and the webhooks upgraded.
    for (const [kind, crd] of crds) {
      const current = await ok(api.request("GET", crdPath(kind)), "reading the CRD");
      const restored = {
        ...recreatable(crd),
        metadata: { ...crd.metadata, resourceVersion: current.metadata.resourceVersion },
      };
      await ok(api.request("PUT", crdPath(kind), restored), "restoring the CRD");
    }
    for (const { path, object } of webhooks)
      await ok(api.request("POST", path, recreatable(object)), "restoring a webhook configuration");
    await eventually(
      "today's CRD and webhooks in effect",
      async () => !(await admitted(probes.strict)) && !(await admitted(probes.webhook)),
    );
  }
  return Promise.all(
    legacies.map((legacy) => {
      const meta = legacy.object.metadata as Record<string, unknown>;
      const path = `${resourcePath(legacy.kind, meta.namespace as string)}/${meta.name}`;
      return ok(api.request("GET", path), `reading ${meta.name} back`);
    }),
  );
}

/** The CRD as an older release had it: any spec at all, its subresources and printer columns kept. */
function loosened(crd: KubeObject): KubeObject {
  const spec = crd.spec as { versions: Record<string, unknown>[] };
  return {
    ...crd,
    spec: {
      ...spec,
      versions: spec.versions.map((version) => ({
        ...version,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      })),
    },
  };
}
