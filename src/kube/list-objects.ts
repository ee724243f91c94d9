import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { createGunzip } from "node:zlib";
import type { KubeConfig } from "@kubernetes/client-node";
import { retryTooManyRequests } from "./api-errors.js";

export interface CustomResource {
  group: string;
  version: string;
  plural: string;
}

interface ObjectPage {
  items?: unknown;
  metadata?: { continue?: unknown };
}

/**
 * What one listing may cost, whatever the API server does: a real one answers a page in well under a
 * second, returns at most `limit` objects, and never repeats a continue token. A hostile or broken one
 * (a token that never changes, no answer, a page that ignores `limit`, a gzip bomb) once held `audit`
 * forever or took 1.5 GB.
 */
export interface ListBounds {
  /** Each request, from connecting to the last byte; 0: none (kubectl's --request-timeout). */
  timeoutMs: number;
  /** Bytes of one page's JSON, after decompression. */
  maxPageBytes: number;
  /** Pages of one listing. */
  maxPages: number;
}

export const defaultListBounds: ListBounds = {
  timeoutMs: 60_000,
  maxPageBytes: 64 * 1024 * 1024,
  maxPages: 10_000,
};

/** The listing was stopped: what the API server did, in one line; `code` its HTTP status when it refused. */
export class ListError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = "ListError";
  }
}

/**
 * The objects of one custom resource, page by page, as `kubectl get --chunk-size` reads them: the list
 * API with `limit` and `continue`, so neither the API server nor this process holds more than a page.
 * `namespace` undefined lists every namespace. Each request is bounded by `bounds`; what breaks a bound
 * ends the listing with a ListError naming it.
 */
export async function* listPages(
  kubeConfig: KubeConfig,
  resource: CustomResource,
  namespace: string | undefined,
  limit: number,
  bounds: ListBounds = defaultListBounds,
): AsyncGenerator<unknown[]> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new ListError("the kubeconfig names no cluster server");
  const where = namespace === undefined ? "" : `/namespaces/${encodeURIComponent(namespace)}`;
  const path = `/apis/${resource.group}/${resource.version}${where}/${resource.plural}`;
  const seen = new Set<string>();
  let token: string | undefined;
  for (let pages = 1; ; pages++) {
    const query = new URLSearchParams({ limit: String(limit), ...(token ? { continue: token } : {}) });
    // Appended, not resolved: a server URL may have a path of its own (a proxy's prefix).
    const url = new URL(`${server.replace(/\/+$/, "")}${path}?${query}`);
    const page = (await retryTooManyRequests(() => getJson(kubeConfig, url, bounds))) as ObjectPage;
    const items = page?.items ?? [];
    if (!Array.isArray(items)) throw new ListError(`the API server answered ${path} without a list of items`);
    if (items.length > limit) {
      throw new ListError(
        `the API server sent ${items.length} objects in one page of ${path}, asked for at most ${limit}`,
      );
    }
    yield items;
    const next = page.metadata?.continue;
    if (typeof next !== "string" || next === "") return;
    if (seen.has(next)) {
      throw new ListError(`the API server repeated a continue token for ${path}: it would list forever`);
    }
    if (pages >= bounds.maxPages) {
      throw new ListError(`the API server had more than ${bounds.maxPages} pages of ${path}; stopped`);
    }
    seen.add(next);
    token = next;
  }
}

/** One GET, its JSON read within the request timeout and the page's byte cap (decompressed). */
async function getJson(kubeConfig: KubeConfig, url: URL, bounds: ListBounds): Promise<unknown> {
  const options: RequestOptions = {
    method: "GET",
    headers: { accept: "application/json", "accept-encoding": "gzip" },
  };
  await kubeConfig.applyToHTTPSOptions(options);
  const seconds = bounds.timeoutMs / 1000;
  const text = await new Promise<string>((resolve, reject) => {
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(url, options, (res) => {
      readBody(res, bounds.maxPageBytes, url.pathname).then((body) => {
        const status = res.statusCode ?? 0;
        if (status >= 400)
          reject(new ListError(`${statusMessage(body, url.pathname)} (HTTP ${status})`, status));
        else resolve(body);
      }, reject);
    });
    const timer =
      bounds.timeoutMs > 0
        ? setTimeout(
            () =>
              req.destroy(new ListError(`the API server did not answer ${url.pathname} within ${seconds} s`)),
            bounds.timeoutMs,
          )
        : undefined;
    req.once("close", () => clearTimeout(timer));
    req.once("error", (error) =>
      reject(
        error instanceof ListError ? error : new ListError(`requesting ${url.pathname}: ${error.message}`),
      ),
    );
    req.end();
  });
  try {
    return JSON.parse(text);
  } catch {
    throw new ListError(`the API server answered ${url.pathname} with something that is not JSON`);
  }
}

/** The body as text, decompressed when gzip, refused past `maxBytes` of it (a bomb stops there). */
function readBody(res: IncomingMessage, maxBytes: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const gzip = /\bgzip\b/i.test(String(res.headers["content-encoding"] ?? ""));
    const stream = gzip ? res.pipe(createGunzip()) : res;
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        res.destroy();
        stream.destroy();
        reject(
          new ListError(
            `the API server sent more than ${maxBytes / 1024 / 1024} MiB for one page of ${path}${gzip ? " (decompressed)" : ""}; try a smaller --chunk-size`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    stream.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    // Cut off before its end (the request's timeout destroys it): settled by the request's error.
    stream.once("close", () => reject(new ListError(`the answer to ${path} was cut off`)));
    stream.once("error", (error: Error) => reject(new ListError(`reading ${path}: ${error.message}`)));
    if (gzip) res.once("error", (error: Error) => reject(new ListError(`reading ${path}: ${error.message}`)));
  });
}

/** The API server's Status message, on one line; or what the body is, when it is no Status. */
function statusMessage(body: string, path: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === "string") return message.replace(/\s+/g, " ").slice(0, 500);
  } catch {}
  return `the API server refused ${path}`;
}
