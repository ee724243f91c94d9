import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { issueCertificates } from "../../src/server/certificates.js";
import { writeKubeconfig } from "../support/kubeconfig-file.js";
import { helmModule } from "../support/modules.js";

const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** `module-admission audit` as users run it: its exit status, its stderr, how long it took. */
function audit(kubeconfig: string, args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", main, "audit", "--kubeconfig", kubeconfig, "--kind", "Module", "-A", ...args],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("exit", (status) => resolve({ status, stdout, stderr, ms: performance.now() - started }));
  });
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

/**
 * An API server that breaks the list API's promises in the ways issue 21 found: each made `audit`
 * loop, hang or take gigabytes. Each must end it with exit 2 and one line naming what it did.
 */
const hostile: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "a continue token that never changes": (_req, res) =>
    json(res, { kind: "ModuleList", items: [], metadata: { continue: "again" } }),
  "no answer": () => {},
  "a page that ignores limit": (_req, res) =>
    json(res, { kind: "ModuleList", items: Array.from({ length: 11 }, () => ({})), metadata: {} }),
  "a gzip bomb (65 MiB of spaces, 64 KiB sent)": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(bomb);
  },
};
const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, " "));

const expected: Record<string, RegExp> = {
  "a continue token that never changes":
    /^module-admission: listing modules\.batch\.forkspacer\.com: the API server repeated a continue token for \/apis\/batch\.forkspacer\.com\/v1\/modules: it would list forever\n$/,
  "no answer":
    /^module-admission: listing modules\.batch\.forkspacer\.com: the API server did not answer \/apis\/batch\.forkspacer\.com\/v1\/modules within 2 s\n$/,
  "a page that ignores limit":
    /^module-admission: listing .*: the API server sent 11 objects in one page of \/apis\/batch\.forkspacer\.com\/v1\/modules, asked for at most 10\n$/,
  "a gzip bomb (65 MiB of spaces, 64 KiB sent)":
    /^module-admission: listing .*: the API server sent more than 64 MiB for one page of \/apis\/batch\.forkspacer\.com\/v1\/modules \(decompressed\); try a smaller --chunk-size\n$/,
};

describe("audit against a hostile API server (issue 21)", { timeout: 120_000 }, () => {
  let server: Server;
  let kubeconfig: string;
  let behaviour = Object.values(hostile)[0] as (req: IncomingMessage, res: ServerResponse) => void;
  before(async () => {
    const certs = await issueCertificates(["localhost"]);
    server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => behaviour(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    kubeconfig = writeKubeconfig({ url, caCert: certs.caCert });
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  for (const [name, answer] of Object.entries(hostile)) {
    it(`exits 2 with one line on ${name}`, async (t) => {
      behaviour = answer;
      const run = await audit(kubeconfig, ["--chunk-size", "10", "--request-timeout", "2s"]);
      t.diagnostic(`exit ${run.status} after ${run.ms.toFixed(0)} ms: ${run.stderr.trim()}`);
      assert.equal(run.status, 2);
      assert.match(run.stderr, expected[name] as RegExp);
    });
  }

  it("writes each page's findings as it goes: the first page's are out when the second never comes", async () => {
    const denied = helmModule();
    denied.metadata = { name: "m1", namespace: "team" };
    denied.spec.config = { ...denied.spec.config, replicas: 9 };
    behaviour = (req, res) => {
      if (new URL(req.url ?? "/", "https://x").searchParams.has("continue")) return;
      json(res, { kind: "ModuleList", items: [denied], metadata: { continue: "next" } });
    };
    for (const output of ["text", "json"]) {
      const run = await audit(kubeconfig, ["--request-timeout", "1s", "-o", output]);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /did not answer .* within 1 s\n$/);
      assert.match(run.stdout, /spec\.config\.replicas: Invalid value: 9/);
      if (output === "json") assert.equal(JSON.parse(run.stdout).findings.length, 1, "well-formed JSON");
    }
  });
});
