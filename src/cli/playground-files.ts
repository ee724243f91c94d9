import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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
 * a header. Undefined when the page has not been built. It judges nothing: the page does, in the browser.
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
    if (request.method !== "GET" && request.method !== "HEAD") {
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
