import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { limitConnections } from "../server/connection-limit.js";
import { defaultTimeouts } from "../server/https-server.js";

/** Where `npm run build:playground` writes the page: dist/playground/ (from src/cli/ and dist/cli/ alike). */
export const playgroundDir = fileURLToPath(new URL("../../dist/playground/", import.meta.url));

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

/**
 * A request handler serving the built page, read once: only the files the build wrote (`/` is
 * index.html), GET and HEAD only, with the page's Content-Security-Policy (from its meta tag) also as
 * a header. A request with a body is refused unread, and its connection closed (nothing here takes
 * input). Undefined when the page has not been built. It judges nothing: the page does, in the browser.
 */
export function playgroundHandler(
  dir = playgroundDir,
): ((request: IncomingMessage, response: ServerResponse) => void) | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => Object.keys(contentTypes).some((ext) => name.endsWith(ext)));
  } catch {
    return undefined;
  }
  if (!names.includes("index.html")) return undefined;
  const files = new Map(names.map((name) => [`/${name}`, readFileSync(join(dir, name))]));
  const page = files.get("/index.html")?.toString("utf8") ?? "";
  const policy = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(page)?.[1];
  return (request, response) => {
    const path = new URL(request.url ?? "/", "http://playground").pathname;
    const name = path === "/" ? "/index.html" : path;
    const body = files.get(name);
    const withBody =
      request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    if (withBody) response.setHeader("connection", "close");
    if ((request.method !== "GET" && request.method !== "HEAD") || withBody) {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (!body) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const type = contentTypes[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream";
    response.writeHead(200, {
      "content-type": type,
      "content-length": body.length,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
      ...(policy ? { "content-security-policy": policy } : {}),
    });
    response.end(request.method === "HEAD" ? undefined : body);
  };
}

/** Open connections to the page's listener at most: static files, a browser opens a handful. */
const playgroundConnections = 64;

/**
 * `serve --playground`: the page on a plain-HTTP listener of its own, never the webhook's, bounded as the
 * metrics listener is (header and request timeouts, a connection cap, no body read). Undefined when the
 * page has not been built.
 */
export async function startPlaygroundServer(
  port: number,
  host?: string,
): Promise<{ port: number; close(): Promise<void> } | undefined> {
  const handler = playgroundHandler();
  if (!handler) return undefined;
  const server = createServer(handler);
  server.headersTimeout = defaultTimeouts.headersMs;
  server.requestTimeout = defaultTimeouts.requestMs;
  limitConnections(server, {
    max: playgroundConnections,
    silentMs: defaultTimeouts.silentMs,
    secure: false,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
