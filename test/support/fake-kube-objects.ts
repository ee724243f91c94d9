import type { ServerResponse } from "node:http";

/** The objects and answers of the fake API server (fake-kube-api.ts): Status bodies, patches, kinds. */

export type KubeObject = Record<string, any>;

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const builtIns: ResourceType[] = [
  { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true },
  { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "mutatingwebhookconfigurations",
    kind: "MutatingWebhookConfiguration",
    namespaced: false,
  },
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingwebhookconfigurations",
    kind: "ValidatingWebhookConfiguration",
    namespaced: false,
  },
  {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
];

export function reply(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json", "cache-control": "no-cache, private" });
  res.end(JSON.stringify(body));
}

export function status(
  code: number,
  reason: string,
  message: string,
  type?: ResourceType,
  name?: string,
): KubeObject {
  const details = type
    ? { name, ...(type.group ? { group: type.group } : {}), kind: type.plural }
    : undefined;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

export function conflict(type: ResourceType, name: string): KubeObject {
  const qualifiedName = type.group ? `${type.plural}.${type.group}` : type.plural;
  return status(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedName} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    type,
    name,
  );
}

export function managedField(manager: string, operation: string, type: ResourceType) {
  return {
    manager,
    operation,
    apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
    time: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    fieldsType: "FieldsV1",
  };
}

export const sameType = (a: ResourceType, b: ResourceType) =>
  a.group === b.group && a.version === b.version && a.plural === b.plural;

export const matchesNamespace = (watcher: { namespace: string | undefined }, object: KubeObject) =>
  !watcher.namespace || object.metadata?.namespace === watcher.namespace;

/** Equal apart from server-maintained metadata: a no-op write keeps its resourceVersion. */
export function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = ({ metadata, status: _, ...rest }: KubeObject) => {
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata ?? {};
    return JSON.stringify({ ...rest, metadata: meta });
  };
  return strip(a) === strip(b);
}

/** RFC 7386. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === "object" && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
