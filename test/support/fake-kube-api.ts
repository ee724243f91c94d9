import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import jsonpatch from "fast-json-patch";
import { load as loadYaml } from "js-yaml";
import { issueCertificates } from "../../src/server/certificates.js";
import { crdSchemaProblems } from "./crd-schema.js";
import {
  builtIns,
  conflict,
  type KubeObject,
  managedField,
  matchesNamespace,
  mergePatch,
  type ResourceType,
  reply,
  sameContent,
  sameType,
  status,
} from "./fake-kube-objects.js";
import { writeKubeconfig } from "./kubeconfig-file.js";

/**
 * A local stand-in for kube-apiserver (no real one can run here), speaking the paths this project uses
 * the way the real one does: HTTPS with a bearer token; JSON bodies with `application/json`; failures
 * as `Status` objects (404 NotFound, 409 AlreadyExists/Conflict, 410 Expired, 415, 422); list with a
 * resourceVersion, paginated with limit/continue, filtered by an equality labelSelector; watch as newline-delimited JSON events (ADDED, MODIFIED, DELETED, BOOKMARK when
 * allowWatchBookmarks, ERROR with a 410 Status when the version was compacted away) ending after
 * timeoutSeconds; get, create, update (optimistic concurrency), delete and patch (JSON patch, merge
 * patch, server-side apply with field managers and force); custom resources served only while their
 * CRD exists, and a CRD Established after it has been read a few times, as a real one is after a while.
 *
 * Simplifications: server-side apply tracks managers per object, not per field (any other manager of an
 * object whose content would change is a conflict); no admission or defaulting; schema validation of custom
 * resources only with `validateCustomResources`.
 */
export interface FakeKubeApi {
  url: string;
  /** PEM of the CA that signed the server's certificate (for 127.0.0.1 and localhost). */
  caCert: string;
  /** The bearer token the server accepts. */
  token: string;
  /** A kubeconfig file for this server (CA, bearer token), as `kubectl config view --raw` writes one. */
  kubeconfigPath: string;
  kubeConfig(): KubeConfig;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Creates or replaces an object as a controller would (watchers see ADDED or MODIFIED). */
  put(object: KubeObject): KubeObject;
  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): void;
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Changes objects without telling watchers, then compacts history: a client away meanwhile must relist. */
  changeWhileCompacted(change: () => void): void;
  /** Ends every open watch, as an API server restart or a load balancer does. */
  closeWatches(): void;
  /** Sends a BOOKMARK with the current resourceVersion to every watch that asked for bookmarks. */
  sendBookmarks(): void;
  openWatches(): number;
  /**
   * Holds the requests `matches` picks until the returned function is called (a slow API server):
   * lets a test line up concurrent clients deterministically. `held()` says how many wait.
   */
  hold(matches: (request: RecordedRequest) => boolean): { release: () => void; held: () => number };
  /** Answers the requests `matches` picks with a failure Status (e.g. 403 Forbidden) until `stop()`. */
  refuse(
    matches: (request: RecordedRequest) => boolean,
    code: number,
    reason: string,
    message: string,
  ): () => void;
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  /** The HTTP status answered, once the response has been sent. */
  status?: number;
}

export type { KubeObject } from "./fake-kube-objects.js";

/** A labelSelector of equality requirements (`a=b,c==d`), as the list API filters by it. */
function matchesLabels(object: KubeObject, selector: string | null): boolean {
  if (!selector) return true;
  const labels = (object.metadata.labels ?? {}) as Record<string, string>;
  return selector.split(",").every((requirement) => {
    const [key, value] = requirement.split(/==?/) as [string, string | undefined];
    if (value === undefined) throw new Error(`fake API server: unsupported labelSelector ${selector}`);
    return labels[key.trim()] === value.trim();
  });
}

const token = "fake-token";

interface Watcher {
  type: ResourceType;
  namespace: string | undefined;
  bookmarks: boolean;
  res: ServerResponse;
  timer: NodeJS.Timeout | undefined;
}

interface Event {
  resourceVersion: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: KubeObject;
}

export async function startFakeKubeApi(
  options: {
    establishAfterReads?: number;
    /**
     * Custom resources written over HTTP are checked against their CRD version's openAPIV3Schema, and
     * refused with 422 Invalid as the API server refuses them (opt-in: older tests write partial objects).
     */
    validateCustomResources?: boolean;
  } = {},
): Promise<FakeKubeApi> {
  const establishAfterReads = options.establishAfterReads ?? 1;
  const objects = new Map<string, KubeObject>();
  const history: Event[] = [];
  const crdReads = new Map<string, number>();
  const watchers = new Set<Watcher>();
  const requests: RecordedRequest[] = [];
  let resourceVersion = 100;
  let compactedThrough = 0;
  let silent = false;
  const refusals: { matches: (request: RecordedRequest) => boolean; status: KubeObject }[] = [];
  const holds: { matches: (request: RecordedRequest) => boolean; waiting: (() => void)[] }[] = [];

  const apiVersionOf = (type: ResourceType) => (type.group ? `${type.group}/${type.version}` : type.version);
  const qualified = (type: ResourceType) => (type.group ? `${type.plural}.${type.group}` : type.plural);
  const storeKey = (type: ResourceType, namespace: string | undefined, name: string) =>
    `${apiVersionOf(type)}/${type.plural}/${namespace ?? ""}/${name}`;

  function servedTypes(): ResourceType[] {
    const custom = [...objects.values()]
      .filter((object) => object.kind === "CustomResourceDefinition")
      .flatMap((crd) =>
        (crd.spec.versions as { name: string; served: boolean }[])
          .filter((version) => version.served)
          .map((version) => ({
            group: crd.spec.group as string,
            version: version.name,
            plural: crd.spec.names.plural as string,
            kind: crd.spec.names.kind as string,
            namespaced: crd.spec.scope === "Namespaced",
          })),
      );
    return [...builtIns, ...custom];
  }

  const typeOfKind = (apiVersion: string, kind: string) =>
    servedTypes().find((type) => apiVersionOf(type) === apiVersion && type.kind === kind);

  function record(type: ResourceType, eventType: Event["type"], object: KubeObject): void {
    const event = { resourceVersion, type: eventType, object: structuredClone(object) };
    history.push(event);
    if (silent) return;
    for (const watcher of watchers) {
      if (sameType(watcher.type, type) && matchesNamespace(watcher, object)) send(watcher, event);
    }
  }

  function store(type: ResourceType, object: KubeObject, eventType: "ADDED" | "MODIFIED"): KubeObject {
    resourceVersion += 1;
    object.metadata.resourceVersion = String(resourceVersion);
    const key = storeKey(type, object.metadata.namespace, object.metadata.name);
    if (type.kind === "CustomResourceDefinition") {
      // Status is a subresource: writes to the main resource keep it; a new CRD starts installing.
      if (eventType === "ADDED") markInstalling(object);
      else object.status = objects.get(key)?.status;
    }
    const before = servedTypes();
    objects.set(key, object);
    record(type, eventType, object);
    endWatchesOfUnservedTypes(before);
    return structuredClone(object);
  }

  function removeStored(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): KubeObject | undefined {
    const key = storeKey(type, namespace, name);
    const object = objects.get(key);
    if (!object) return undefined;
    const before = servedTypes();
    objects.delete(key);
    resourceVersion += 1;
    object.metadata.resourceVersion = String(resourceVersion);
    record(type, "DELETED", object);
    endWatchesOfUnservedTypes(before);
    return object;
  }

  /** Watches on a resource whose CRD went away end, as the real API server ends them. */
  function endWatchesOfUnservedTypes(before: ResourceType[]): void {
    const now = servedTypes();
    for (const watcher of watchers) {
      if (
        before.some((type) => sameType(type, watcher.type)) &&
        !now.some((type) => sameType(type, watcher.type))
      ) {
        endWatch(watcher);
      }
    }
  }

  function markInstalling(crd: KubeObject): void {
    crdReads.set(crd.metadata.name, 0);
    crd.status = {
      acceptedNames: crd.spec.names,
      conditions: [
        { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" },
        {
          type: "Established",
          status: "False",
          reason: "Installing",
          message: "the initial names have not been accepted",
        },
      ],
      storedVersions: (crd.spec.versions as { name: string; storage: boolean }[])
        .filter((version) => version.storage)
        .map((version) => version.name),
    };
  }

  function readCrd(crd: KubeObject): void {
    const reads = (crdReads.get(crd.metadata.name) ?? 0) + 1;
    crdReads.set(crd.metadata.name, reads);
    const established = crd.status?.conditions?.find((c: { type: string }) => c.type === "Established");
    if (established && reads > establishAfterReads) {
      Object.assign(established, {
        status: "True",
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      });
    }
  }

  function newMetadata(object: KubeObject, namespace: string | undefined): void {
    object.metadata = {
      ...object.metadata,
      uid: randomUUID(),
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      generation: 1,
      ...(namespace ? { namespace } : {}),
    };
  }

  function send(watcher: Watcher, event: { type: string; object: KubeObject }): void {
    watcher.res.write(`${JSON.stringify(event)}\n`);
  }

  function endWatch(watcher: Watcher): void {
    clearTimeout(watcher.timer);
    watchers.delete(watcher);
    watcher.res.end();
  }

  const certs = await issueCertificates(["localhost"]);
  const server: Server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        reply(res, 500, status(500, "InternalError", `fake API server: ${(error as Error).message}`));
      }
    });
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? "/", "https://fake");
    const method = req.method ?? "GET";
    const recorded: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      contentType: req.headers["content-type"],
    };
    requests.push(recorded);
    res.on("finish", () => {
      recorded.status = res.statusCode;
    });
    const refusal = refusals.find((candidate) => candidate.matches(recorded));
    if (refusal) {
      reply(res, refusal.status.code, refusal.status);
      return;
    }
    const hold = holds.find((candidate) => candidate.matches(recorded));
    if (hold) {
      hold.waiting.push(() => serve(req, res, url, method, body));
      return;
    }
    serve(req, res, url, method, body);
  }

  function serve(req: IncomingMessage, res: ServerResponse, url: URL, method: string, body: string): void {
    if (req.headers.authorization !== `Bearer ${token}`) {
      reply(res, 401, status(401, "Unauthorized", "Unauthorized"));
      return;
    }
    const route = parsePath(url.pathname);
    if (!route) {
      reply(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
      return;
    }
    const { type, namespace, name } = route;
    const dryRun = url.searchParams.get("dryRun") === "All";
    if (!name && method === "GET") {
      if (url.searchParams.get("watch") === "true") watch(res, type, namespace, url.searchParams);
      else list(res, type, namespace, url.searchParams);
      return;
    }
    if (!name && method === "POST") {
      const object = JSON.parse(body) as KubeObject;
      if (namespace && object.metadata?.namespace && object.metadata.namespace !== namespace) {
        reply(
          res,
          400,
          status(
            400,
            "BadRequest",
            "the namespace of the provided object does not match the namespace sent on the request",
          ),
        );
        return;
      }
      const itemName = object.metadata?.name as string;
      if (objects.has(storeKey(type, namespace, itemName))) {
        reply(
          res,
          409,
          status(409, "AlreadyExists", `${qualified(type)} "${itemName}" already exists`, type, itemName),
        );
        return;
      }
      newMetadata(object, namespace);
      if (refusedAsInvalid(res, type, object)) return;
      reply(res, 201, dryRun ? object : store(type, withTypeMeta(type, object), "ADDED"));
      return;
    }
    if (!name) {
      reply(
        res,
        405,
        status(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`),
      );
      return;
    }
    const existing = objects.get(storeKey(type, namespace, name));
    const notFound = () =>
      reply(res, 404, status(404, "NotFound", `${qualified(type)} "${name}" not found`, type, name));
    if (method === "GET") {
      if (!existing) {
        notFound();
        return;
      }
      if (type.kind === "CustomResourceDefinition") readCrd(existing);
      reply(res, 200, existing);
      return;
    }
    if (method === "DELETE") {
      if (!existing) {
        notFound();
        return;
      }
      reply(res, 200, dryRun ? existing : removeStored(type, namespace, name));
      return;
    }
    if (method === "PUT") {
      if (!existing) {
        notFound();
        return;
      }
      const object = JSON.parse(body) as KubeObject;
      const sentVersion = object.metadata?.resourceVersion;
      if (sentVersion !== undefined && sentVersion !== existing.metadata.resourceVersion) {
        reply(res, 409, conflict(type, name));
        return;
      }
      object.metadata = {
        ...object.metadata,
        uid: existing.metadata.uid,
        creationTimestamp: existing.metadata.creationTimestamp,
      };
      if (refusedAsInvalid(res, type, object)) return;
      reply(res, 200, dryRun ? object : store(type, withTypeMeta(type, object), "MODIFIED"));
      return;
    }
    if (method === "PATCH") {
      patch(res, type, namespace, name, existing, body, req.headers["content-type"], url.searchParams);
      return;
    }
    reply(
      res,
      405,
      status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"),
    );
  }

  function patch(
    res: ServerResponse,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    existing: KubeObject | undefined,
    body: string,
    contentType: string | undefined,
    query: URLSearchParams,
  ): void {
    const dryRun = query.get("dryRun") === "All";
    let result: KubeObject;
    if (contentType === "application/apply-patch+yaml") {
      const manager = query.get("fieldManager");
      if (!manager) {
        reply(res, 400, status(400, "BadRequest", "PATCH, fieldManager is required for apply requests"));
        return;
      }
      const applied = loadYaml(body) as KubeObject;
      if (!existing) {
        newMetadata(applied, namespace);
        applied.metadata.managedFields = [managedField(manager, "Apply", type)];
        if (refusedAsInvalid(res, type, applied)) return;
        reply(res, 201, dryRun ? applied : store(type, withTypeMeta(type, applied), "ADDED"));
        return;
      }
      result = {
        ...structuredClone(existing),
        ...applied,
        metadata: { ...existing.metadata, ...applied.metadata },
      };
      const others = ((existing.metadata.managedFields ?? []) as { manager: string }[]).filter(
        (f) => f.manager !== manager,
      );
      const changes = !sameContent(existing, result);
      if (others.length > 0 && changes && query.get("force") !== "true") {
        const list = others.map((field) => `conflict with "${field.manager}": .spec`).join("\n- ");
        reply(res, 409, {
          ...status(
            409,
            "Conflict",
            `Apply failed with ${others.length} conflict${others.length === 1 ? "" : "s"}: ${list}`,
            type,
            name,
          ),
        });
        return;
      }
      result.metadata.managedFields = [managedField(manager, "Apply", type)];
    } else if (!existing) {
      reply(res, 404, status(404, "NotFound", `${qualified(type)} "${name}" not found`, type, name));
      return;
    } else if (contentType === "application/json-patch+json") {
      try {
        result = jsonpatch.applyPatch(structuredClone(existing), JSON.parse(body), true, false).newDocument;
      } catch (error) {
        reply(
          res,
          422,
          status(
            422,
            "Invalid",
            `the server rejected our request due to an error in our request: ${(error as Error).message}`,
          ),
        );
        return;
      }
    } else if (contentType === "application/merge-patch+json") {
      result = mergePatch(structuredClone(existing), JSON.parse(body)) as KubeObject;
    } else {
      reply(
        res,
        415,
        status(
          415,
          "UnsupportedMediaType",
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        ),
      );
      return;
    }
    if (refusedAsInvalid(res, type, result)) return;
    if (sameContent(existing, result) || dryRun) {
      reply(res, 200, result);
      return;
    }
    reply(res, 200, store(type, result, "MODIFIED"));
  }

  /**
   * A list, paginated as the API server does with `limit`: items in key order (namespace/name), a
   * `continue` token naming the last key sent, and `remainingItemCount`; a bad token is a 400.
   */
  function list(
    res: ServerResponse,
    type: ResourceType,
    namespace: string | undefined,
    query: URLSearchParams,
  ): void {
    const key = (object: KubeObject) => `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
    let items = [...objects.values()]
      .filter(
        (object) =>
          object.apiVersion === apiVersionOf(type) &&
          object.kind === type.kind &&
          (!namespace || object.metadata.namespace === namespace) &&
          matchesLabels(object, query.get("labelSelector")),
      )
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const token = query.get("continue");
    if (token) {
      let after: unknown;
      try {
        after = JSON.parse(Buffer.from(token, "base64url").toString("utf8")).after;
      } catch {
        after = undefined;
      }
      if (typeof after !== "string") {
        reply(res, 400, status(400, "BadRequest", "continue key is not valid: illegal base64 data"));
        return;
      }
      items = items.filter((item) => key(item) > after);
    }
    const limit = Number(query.get("limit") ?? 0);
    const page = limit > 0 ? items.slice(0, limit) : items;
    const remaining = items.length - page.length;
    const last = page.at(-1);
    reply(res, 200, {
      apiVersion: apiVersionOf(type),
      kind: `${type.kind}List`,
      metadata: {
        resourceVersion: String(resourceVersion),
        ...(remaining > 0 && last
          ? {
              continue: Buffer.from(JSON.stringify({ after: key(last) })).toString("base64url"),
              remainingItemCount: remaining,
            }
          : {}),
      },
      items: page,
    });
  }

  function watch(
    res: ServerResponse,
    type: ResourceType,
    namespace: string | undefined,
    query: URLSearchParams,
  ): void {
    res.writeHead(200, {
      "content-type": "application/json",
      "cache-control": "no-cache, private",
      "transfer-encoding": "chunked",
    });
    res.flushHeaders();
    const watcher: Watcher = {
      type,
      namespace,
      bookmarks: query.get("allowWatchBookmarks") === "true",
      res,
      timer: undefined,
    };
    const from = Number(query.get("resourceVersion") || resourceVersion);
    if (from < compactedThrough) {
      res.end(
        `${JSON.stringify({ type: "ERROR", object: status(410, "Expired", `too old resource version: ${from} (${compactedThrough})`) })}\n`,
      );
      return;
    }
    watchers.add(watcher);
    for (const event of history) {
      if (
        event.resourceVersion > from &&
        sameType(type, typeOfKindIn(event.object)) &&
        matchesNamespace(watcher, event.object)
      ) {
        send(watcher, event);
      }
    }
    const timeout = Number(query.get("timeoutSeconds") || 1800);
    watcher.timer = setTimeout(() => endWatch(watcher), timeout * 1000);
    watcher.timer.unref();
    res.on("close", () => {
      clearTimeout(watcher.timer);
      watchers.delete(watcher);
    });
  }

  const typeOfKindIn = (object: KubeObject) =>
    typeOfKind(object.apiVersion, object.kind) ?? {
      group: "?",
      version: "?",
      plural: "?",
      kind: "?",
      namespaced: false,
    };

  function parsePath(path: string): { type: ResourceType; namespace?: string; name?: string } | undefined {
    const parts = path.split("/").filter((part) => part !== "");
    let group = "";
    let version: string | undefined;
    let rest: string[];
    if (parts[0] === "api") {
      version = parts[1];
      rest = parts.slice(2);
    } else if (parts[0] === "apis") {
      group = parts[1] ?? "";
      version = parts[2];
      rest = parts.slice(3);
    } else return undefined;
    let namespace: string | undefined;
    if (rest[0] === "namespaces" && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, ...more] = rest;
    if (more.length > 0) return undefined;
    const type = servedTypes().find((t) => t.group === group && t.version === version && t.plural === plural);
    if (
      !type ||
      (namespace !== undefined && !type.namespaced) ||
      (name !== undefined && type.namespaced && !namespace)
    ) {
      return undefined;
    }
    return { type, namespace, name };
  }

  /** With validateCustomResources: a custom resource its CRD's schema refuses gets 422 Invalid. */
  function refusedAsInvalid(res: ServerResponse, type: ResourceType, object: KubeObject): boolean {
    if (!options.validateCustomResources || !type.group) return false;
    const crd = objects.get(
      storeKey(
        builtIns.find((t) => t.kind === "CustomResourceDefinition") as ResourceType,
        undefined,
        qualified(type),
      ),
    );
    if (!crd) return false;
    const problems = crdSchemaProblems(crd, type.version, withTypeMeta(type, structuredClone(object))) ?? [];
    if (problems.length === 0) return false;
    const name = object.metadata?.name as string;
    reply(
      res,
      422,
      status(
        422,
        "Invalid",
        `${type.kind}.${type.group} "${name}" is invalid: ${problems.join(", ")}`,
        type,
        name,
      ),
    );
    return true;
  }

  function withTypeMeta(type: ResourceType, object: KubeObject): KubeObject {
    return { ...object, apiVersion: apiVersionOf(type), kind: type.kind };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfigPath = writeKubeconfig({ url, caCert: certs.caCert, token });

  const requireType = (apiVersion: string, kind: string) => {
    const type = typeOfKind(apiVersion, kind);
    if (!type) throw new Error(`fake API server does not serve ${kind} ${apiVersion}`);
    return type;
  };

  return {
    url,
    caCert: certs.caCert,
    token,
    kubeconfigPath,
    kubeConfig: () => {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      return config;
    },
    requests,
    put(object) {
      const type = requireType(object.apiVersion, object.kind);
      const copy = structuredClone(object);
      const existing = objects.get(storeKey(type, copy.metadata.namespace, copy.metadata.name));
      if (existing) copy.metadata = { ...copy.metadata, uid: existing.metadata.uid };
      else newMetadata(copy, copy.metadata.namespace);
      return store(type, copy, existing ? "MODIFIED" : "ADDED");
    },
    remove(apiVersion, kind, namespace, name) {
      removeStored(requireType(apiVersion, kind), namespace, name);
    },
    get(apiVersion, kind, namespace, name) {
      const type = typeOfKind(apiVersion, kind);
      const object = type && objects.get(storeKey(type, namespace, name));
      return object && structuredClone(object);
    },
    changeWhileCompacted(change) {
      silent = true;
      try {
        change();
      } finally {
        silent = false;
      }
      compactedThrough = resourceVersion;
    },
    closeWatches() {
      for (const watcher of [...watchers]) endWatch(watcher);
    },
    sendBookmarks() {
      for (const watcher of watchers) {
        if (!watcher.bookmarks) continue;
        send(watcher, {
          type: "BOOKMARK",
          object: {
            apiVersion: apiVersionOf(watcher.type),
            kind: watcher.type.kind,
            metadata: { resourceVersion: String(resourceVersion) },
          },
        });
      }
    },
    openWatches: () => watchers.size,
    refuse(matches, code, reason, message) {
      const refusal = { matches, status: status(code, reason, message) };
      refusals.push(refusal);
      return () => {
        refusals.splice(refusals.indexOf(refusal), 1);
      };
    },
    hold(matches) {
      const hold = { matches, waiting: [] as (() => void)[] };
      holds.push(hold);
      return {
        held: () => hold.waiting.length,
        release: () => {
          holds.splice(holds.indexOf(hold), 1);
          for (const resume of hold.waiting.splice(0)) resume();
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const watcher of [...watchers]) endWatch(watcher);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
