import { goJson } from "../admission/field-errors.js";

/**
 * The client that sends a manifest to the API server, and what it sends. `kubectl apply -f`
 * (client-side apply; `kubectl` here) drops null fields from maps, records the manifest in the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation, and asks for strict field validation
 * (an unknown field refuses the request). `kubectl create -f` asks for strict field validation too but
 * sends the manifest as read, nulls included, and records nothing: it rewrites the annotation only
 * when the manifest already carries one (kubectl's CreateOrUpdateAnnotation without --save-config).
 * A GitOps tool (Argo CD, Flux) sends the object as it is and names no field validation, so the
 * server's default applies: an unknown field is a warning.
 */
export type Client = "kubectl" | "kubectl-create" | "gitops";

/** Whether `client` is kubectl: YAML 1.1, the manifest's metadata read first, strict field validation. */
export const isKubectl = (client: Client): boolean => client !== "gitops";

export const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

/** What `client` puts in the request body for `object`; the object itself when it changes nothing. */
export function sentBy(
  client: Client,
  object: Record<string, unknown>,
  namespaced: boolean,
): Record<string, unknown> {
  if (client === "gitops") return object;
  const manifest = withNamespace(object, namespaced);
  const metadata = isRecord(manifest.metadata) ? manifest.metadata : {};
  const { [lastAppliedAnnotation]: previous, ...annotations } = isRecord(metadata.annotations)
    ? (metadata.annotations as Record<string, unknown>)
    : {};
  // kubectl create updates the annotation only when the manifest carries a non-empty one.
  if (client === "kubectl-create" && (typeof previous !== "string" || previous === "")) return manifest;
  // The annotation records the manifest as read (nulls kept), with its annotations less itself.
  const recorded = { ...manifest, metadata: { ...metadata, annotations } };
  // Client-side apply prunes nulls after recording them (kubectl's pruneNullsFromMap); create does not.
  const sent = (client === "kubectl" ? withoutNullFields(manifest) : manifest) as Record<string, unknown>;
  const sentMetadata = isRecord(sent.metadata) ? sent.metadata : {};
  const sentAnnotations = isRecord(sentMetadata.annotations) ? sentMetadata.annotations : {};
  return {
    ...sent,
    metadata: {
      ...sentMetadata,
      annotations: { ...sentAnnotations, [lastAppliedAnnotation]: `${goJson(recorded)}\n` },
    },
  };
}

/** kubectl fills in the namespace of its context (`default`) for a namespaced object that names none. */
function withNamespace(object: Record<string, unknown>, namespaced: boolean): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? object.metadata : undefined;
  if (!namespaced || (metadata && typeof metadata.namespace === "string" && metadata.namespace !== ""))
    return object;
  return { ...object, metadata: { ...(metadata ?? {}), namespace: "default" } };
}

/** Map fields whose value is null dropped, at any depth; null list items stay. */
function withoutNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullFields);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null) continue;
    Object.defineProperty(out, key, {
      value: withoutNullFields(child),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
