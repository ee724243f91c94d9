import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { playgroundHandler } from "../../src/cli/playground-files.js";

/** What the handler answered: status, headers and body, from a response that records them. */
function request(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  method: string,
  url: string,
  headers: Record<string, string> = {},
): { status: number; headers: Record<string, unknown>; body: string } {
  const answer = { status: 0, headers: {} as Record<string, unknown>, body: "" };
  const response = {
    setHeader(name: string, value: unknown) {
      answer.headers[name] = value;
    },
    writeHead(status: number, headers: Record<string, unknown> = {}) {
      answer.status = status;
      answer.headers = { ...answer.headers, ...headers };
      return response;
    },
    end(body?: string | Buffer) {
      answer.body = body === undefined ? "" : body.toString();
      return response;
    },
  };
  handler({ method, url, headers } as unknown as IncomingMessage, response as unknown as ServerResponse);
  return answer;
}

describe("module-admission playground's file handler", () => {
  const dir = mkdtempSync(join(tmpdir(), "playground-files-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const policy = "default-src 'none'; script-src 'self'";
  writeFileSync(
    join(dir, "index.html"),
    `<meta http-equiv="Content-Security-Policy" content="${policy}"><script src="app.js"></script>`,
  );
  writeFileSync(join(dir, "app.js"), "void 0;\n");
  writeFileSync(join(dir, "notes.txt"), "not the page's\n");

  it("serves the built files, / as index.html, with the page's policy as a header too", () => {
    const handler = playgroundHandler(dir);
    assert.ok(handler);
    const page = request(handler, "GET", "/?x=1");
    assert.equal(page.status, 200);
    assert.match(page.body, /<script src="app.js">/);
    assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(page.headers["content-security-policy"], policy);
    assert.equal(
      request(handler, "GET", "/app.js").headers["content-type"],
      "text/javascript; charset=utf-8",
    );
    assert.equal(request(handler, "HEAD", "/app.js").body, "");
  });

  it("serves nothing else: other files, paths out of the folder, other methods", () => {
    const handler = playgroundHandler(dir);
    assert.ok(handler);
    assert.equal(request(handler, "GET", "/notes.txt").status, 404);
    assert.equal(request(handler, "GET", "/../package.json").status, 404);
    assert.equal(request(handler, "GET", "/%2e%2e/package.json").status, 404);
    assert.equal(request(handler, "POST", "/").status, 405);
  });

  it("takes no input: a request with a body is refused unread, and its connection closed", () => {
    const handler = playgroundHandler(dir);
    assert.ok(handler);
    for (const headers of [{ "content-length": "5" }, { "transfer-encoding": "chunked" }] as Record<
      string,
      string
    >[]) {
      const answer = request(handler, "GET", "/", headers);
      assert.equal(answer.status, 405, JSON.stringify(headers));
      assert.equal(answer.headers.connection, "close");
    }
    assert.equal(request(handler, "GET", "/").headers.connection, undefined);
  });

  it("is undefined when the page has not been built", () => {
    assert.equal(playgroundHandler(join(dir, "missing")), undefined);
  });
});
