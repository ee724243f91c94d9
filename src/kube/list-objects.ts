import { createHash } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { createGunzip } from "node:zlib";
import type { KubeConfig } from "@kubernetes/client-node";
import { readJson } from "../base/exact-json.js";
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
 * second, returns at most `limit` objects, never repeats a continue token and writes one of a few
 * hundred bytes (a version and a key). A hostile or broken one (a token that never changes, no answer,
 * a page that ignores `limit`, a gzip bomb, a new 4 MiB token per page) once held `audit` forever or
 * took 1.5 GB.
 */
export interface ListBounds {
  /** Each request, from connecting to the last byte; 0: none (kubectl's --request-timeout). */
  timeoutMs: number;
  /**
   * Bytes of one page's JSON, after decompression, read into one buffer. A page over it is asked for
   * again with half as many objects, down to one; one object over it ends the listing.
   */
  maxPageBytes: number;
  /**
   * JSON values (objects, arrays, scalars) of a page of more than one object: what a page costs once
   * parsed, 20 to 60 bytes each, whatever its bytes (JSON of empty arrays is 3 bytes a value). A page
   * over it is asked for again with half as many objects; one object is held to `maxPageBytes` alone,
   * so that any object the API server stores can be read.
   */
  maxPageValues: number;
  /** Pages of one listing. */
  maxPages: number;
  /** Characters of one continue token. */
  maxContinueChars: number;
}

export const defaultListBounds: ListBounds = {
  timeoutMs: 60_000,
  // The API server stores objects of at most 3 MiB (1.5 MiB with etcd's default request limit).
  maxPageBytes: 4 * 1024 * 1024,
  // A real page of 100 Modules holds about 10,000.
  maxPageValues: 200_000,
  maxPages: 10_000,
  maxContinueChars: 16 * 1024,
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

/** A page over `maxPageBytes`: asked for again with fewer objects. */
class PageTooLarge extends ListError {}

/**
 * The objects of one custom resource, page by page, as `kubectl get --chunk-size` reads them: the list
 * API with `limit` and `continue`, so neither the API server nor this process holds more than a page.
 * `namespace` undefined lists every namespace. Each request is bounded by `bounds`; what breaks a bound
 * ends the listing with a ListError naming it. Tokens seen are kept as digests (32 bytes each).
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
  let asked = limit;
  for (let pages = 1; ; pages++) {
    const query = new URLSearchParams({ limit: String(asked), ...(token ? { continue: token } : {}) });
    // Appended, not resolved: a server URL may have a path of its own (a proxy's prefix).
    const url = new URL(`${server.replace(/\/+$/, "")}${path}?${query}`);
    let page: ObjectPage;
    try {
      page = (await retryTooManyRequests(() => getJson(kubeConfig, url, bounds, asked))) as ObjectPage;
    } catch (error) {
      if (!(error instanceof PageTooLarge) || asked === 1) throw error;
      asked = Math.ceil(asked / 2);
      pages--;
      continue;
    }
    const items = page?.items ?? [];
    if (!Array.isArray(items)) throw new ListError(`the API server answered ${path} without a list of items`);
    if (items.length > asked) {
      throw new ListError(
        `the API server sent ${items.length} objects in one page of ${path}, asked for at most ${asked}`,
      );
    }
    const next = page.metadata?.continue;
    page = {};
    yield items;
    if (typeof next !== "string" || next === "") return;
    if (next.length > bounds.maxContinueChars) {
      throw new ListError(
        `the API server sent a continue token of ${next.length} characters for ${path}, over ${bounds.maxContinueChars}`,
      );
    }
    const digest = createHash("sha256").update(next).digest("base64");
    if (seen.has(digest)) {
      throw new ListError(`the API server repeated a continue token for ${path}: it would list forever`);
    }
    if (pages >= bounds.maxPages) {
      throw new ListError(`the API server had more than ${bounds.maxPages} pages of ${path}; stopped`);
    }
    seen.add(digest);
    token = next;
    asked = limit;
  }
}

/** One GET, its JSON read within the request timeout and the page's byte cap (decompressed). */
async function getJson(
  kubeConfig: KubeConfig,
  url: URL,
  bounds: ListBounds,
  objects: number,
): Promise<unknown> {
  const options: RequestOptions = {
    method: "GET",
    headers: { accept: "application/json", "accept-encoding": "gzip" },
  };
  await kubeConfig.applyToHTTPSOptions(options);
  const seconds = bounds.timeoutMs / 1000;
  const text = await new Promise<string>((resolve, reject) => {
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(url, options, (res) => {
      readBody(res, bounds, url.pathname, objects).then((body) => {
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
    // Exactly, as the API server holds them: audit judges these objects (an int64 default included).
    return readJson(text);
  } catch {
    throw new ListError(`the API server answered ${url.pathname} with something that is not JSON`);
  }
}

/**
 * The body as text, decompressed when gzip, into one buffer (sized from Content-Length, else grown by
 * doubling): however the API server chunks it, a page costs its bytes (kept as a list of chunks, one
 * 2 MB page sent a byte at a time took 3 GB). Refused past `maxBytes`, or past `maxValues` JSON values
 * when the page holds more than one object (a bomb stops there).
 */
function readBody(res: IncomingMessage, bounds: ListBounds, path: string, objects: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const maxBytes = bounds.maxPageBytes;
    const gzip = /\bgzip\b/i.test(String(res.headers["content-encoding"] ?? ""));
    const stream = gzip ? res.pipe(createGunzip()) : res;
    const declared = gzip ? Number.NaN : Number(res.headers["content-length"]);
    let buffer = Buffer.allocUnsafe(
      Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, maxBytes) : 64 * 1024,
    );
    let bytes = 0;
    const values = objects === 1 ? undefined : new JsonValueCount();
    const what = objects === 1 ? "one object" : `one page (${objects} objects)`;
    const refuse = (reason: string) => {
      res.destroy();
      stream.destroy();
      reject(
        new PageTooLarge(
          `the API server sent ${reason} for ${what} of ${path}${gzip ? " (decompressed)" : ""}`,
        ),
      );
    };
    stream.on("data", (chunk: Buffer) => {
      if (bytes + chunk.length > maxBytes) return refuse(`more than ${maxBytes / 1024 / 1024} MiB`);
      if (values && values.add(chunk) > bounds.maxPageValues)
        return refuse(`more than ${bounds.maxPageValues} JSON values`);
      if (bytes + chunk.length > buffer.length) {
        const grown = Buffer.allocUnsafe(
          Math.min(Math.max(buffer.length * 2, bytes + chunk.length), maxBytes),
        );
        buffer.copy(grown, 0, 0, bytes);
        buffer = grown;
      }
      chunk.copy(buffer, bytes);
      bytes += chunk.length;
    });
    stream.once("end", () => resolve(buffer.toString("utf8", 0, bytes)));
    // Cut off before its end (the request's timeout destroys it): settled by the request's error.
    stream.once("close", () => reject(new ListError(`the answer to ${path} was cut off`)));
    stream.once("error", (error: Error) => reject(new ListError(`reading ${path}: ${error.message}`)));
    if (gzip) res.once("error", (error: Error) => reject(new ListError(`reading ${path}: ${error.message}`)));
  });
}

/**
 * Counts the values of JSON text as it arrives in chunks: each `{`, `[` and `,` outside strings starts
 * one (an over-count by at most one per container), one state carried across chunks.
 */
class JsonValueCount {
  private count = 0;
  private inString = false;
  private escaped = false;

  add(chunk: Buffer): number {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === 0x5c) this.escaped = true;
        else if (byte === 0x22) this.inString = false;
      } else if (byte === 0x22) this.inString = true;
      else if (byte === 0x7b || byte === 0x5b || byte === 0x2c) this.count++;
    }
    return this.count;
  }
}

/** The API server's Status message, on one line; or what the body is, when it is no Status. */
function statusMessage(body: string, path: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === "string") return message.replace(/\s+/g, " ").slice(0, 500);
  } catch {}
  return `the API server refused ${path}`;
}
