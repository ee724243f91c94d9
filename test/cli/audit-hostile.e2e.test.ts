import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { loadAll } from "js-yaml";
import { issueCertificates } from "../../src/server/certificates.js";
import { writeKubeconfig } from "../support/kubeconfig-file.js";
import { helmModule } from "../support/modules.js";
import { buildCommand } from "../support/serve-process.js";

const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;

const maxRss = new URL("../support/max-rss.mjs", import.meta.url).href;
let built: string | undefined;

/**
 * `module-admission audit` as users run it (from the sources, or `command`: the built one): its exit
 * status, its output, how long it took.
 */
function audit(
  kubeconfig: string,
  args: string[],
  {
    command = ["--import", "tsx", main],
    env = process.env,
    kinds = ["--kind", "Module"],
  }: { command?: string[]; env?: NodeJS.ProcessEnv; kinds?: string[] } = {},
) {
  return new Promise<{ status: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [...command, "audit", "--kubeconfig", kubeconfig, ...kinds, "-A", ...args],
      { stdio: ["ignore", "pipe", "pipe"], env },
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

/** The heap the chart's audit CronJob gives audit (values.yaml: audit.heapMb). */
const chartHeapMb = 320;

/** An object of about `bytes` of JSON, nearly all of it empty arrays: the most values per byte. */
function pageOfArrays(bytes: number) {
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
    metadata: { name: "m", namespace: "default" },
    spec: { x: Array.from({ length: Math.floor(bytes / 3) }, () => []) },
  };
}

const expected: Record<string, RegExp> = {
  "a continue token that never changes":
    /^module-admission: listing modules\.batch\.forkspacer\.com: the API server repeated a continue token for \/apis\/batch\.forkspacer\.com\/v1\/modules: it would list forever\n$/,
  "no answer":
    /^module-admission: listing modules\.batch\.forkspacer\.com: the API server did not answer \/apis\/batch\.forkspacer\.com\/v1\/modules within 2 s\n$/,
  "a page that ignores limit":
    /^module-admission: listing .*: the API server sent 11 objects in one page of \/apis\/batch\.forkspacer\.com\/v1\/modules, asked for at most 10\n$/,
  // Asked again with fewer objects, down to one: still more than a page may hold.
  "a gzip bomb (65 MiB of spaces, 64 KiB sent)":
    /^module-admission: listing .*: the API server sent more than 4 MiB for one object of \/apis\/batch\.forkspacer\.com\/v1\/modules \(decompressed\)\n$/,
};

describe("audit against a hostile API server (issue 21)", { timeout: 400_000 }, () => {
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

  it("exits 2 with one line, under 256 MiB, on a new 2 MiB continue token per page (issue 32)", async (t) => {
    let pages = 0;
    behaviour = (_req, res) => {
      pages++;
      json(res, {
        kind: "ModuleList",
        items: [],
        metadata: { continue: randomBytes(3 << 19).toString("base64") },
      });
    };
    const maxRssFile = join(mkdtempSync(join(tmpdir(), "audit-rss-")), "max-rss");
    built ??= buildCommand();
    const run = await audit(kubeconfig, ["--chunk-size", "10"], {
      command: ["--import", maxRss, built],
      env: { ...process.env, MAX_RSS_FILE: maxRssFile },
    });
    const peakMiB = Number(readFileSync(maxRssFile, "utf8")) / 1024;
    t.diagnostic(
      `exit ${run.status} after ${pages} pages, peak RSS ${peakMiB.toFixed(0)} MiB: ${run.stderr.trim()}`,
    );
    assert.equal(run.status, 2);
    assert.match(
      run.stderr,
      /^module-admission: listing modules\.batch\.forkspacer\.com: the API server sent a continue token of 2097152 characters for \/apis\/batch\.forkspacer\.com\/v1\/modules, over 16384\n$/,
    );
    assert.ok(peakMiB < 256, `${peakMiB} MiB`);
  });

  /** The built command under `--max-old-space-size` as the chart's CronJob runs it, and its peak RSS. */
  async function auditBuilt(args: string[], kinds?: string[]) {
    const maxRssFile = join(mkdtempSync(join(tmpdir(), "audit-rss-")), "max-rss");
    built ??= buildCommand();
    const run = await audit(kubeconfig, args, {
      command: [`--max-old-space-size=${chartHeapMb}`, "--import", maxRss, built],
      env: { ...process.env, MAX_RSS_FILE: maxRssFile },
      ...(kinds ? { kinds } : {}),
    });
    const peakMiB = run.status === null ? Number.NaN : Number(readFileSync(maxRssFile, "utf8")) / 1024;
    return { ...run, peakMiB };
  }

  it("reads a 2 MB page sent a byte at a time into one buffer: under 256 MiB (issue 41)", async (t) => {
    // Written on the socket as is: HTTP chunks of one byte each, as fast as the socket takes them.
    const page = Buffer.from(
      JSON.stringify({ kind: "ModuleList", items: [pageOfArrays(2_000_000)], metadata: {} }),
    );
    behaviour = (req, res) => {
      const frames = Buffer.alloc(page.length * 6);
      for (let i = 0; i < page.length; i++)
        frames.write(`1\r\n${String.fromCharCode(page[i] as number)}\r\n`, i * 6, "latin1");
      req.socket.write(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      req.socket.write(frames);
      req.socket.end("0\r\n\r\n");
      res.detachSocket(req.socket);
    };
    const run = await auditBuilt(["-o", "json"]);
    t.diagnostic(`exit ${run.status}, peak RSS ${run.peakMiB.toFixed(0)} MiB: ${run.stderr.trim()}`);
    assert.equal(run.status, 1, run.stderr);
    assert.equal(
      JSON.parse(run.stdout).findings[0].file,
      "/apis/batch.forkspacer.com/v1/namespaces/default/modules/m",
    );
    assert.ok(run.peakMiB < 256, `${run.peakMiB} MiB`);
  });

  it("holds a page of every kind at once (-o policyreport) within the CronJob's 512 MiB (issue 41)", async (t) => {
    // What a page costs parsed, at its worst: objects of 2 MiB of empty arrays (700,000 values each),
    // four to a page (8 MiB), each kind's page held while the namespaces are merged (761-786 MiB
    // before). A page over 4 MiB or 200,000 values is asked for again with fewer objects.
    const object = pageOfArrays((2 << 20) - 1024);
    let requests = 0;
    behaviour = (req, res) => {
      requests++;
      const limit = Number(new URL(req.url ?? "/", "https://x").searchParams.get("limit"));
      json(res, { kind: "List", items: Array(Math.min(limit, 4)).fill(object), metadata: {} });
    };
    const run = await auditBuilt(["-o", "policyreport"], []);
    t.diagnostic(`exit ${run.status} after ${requests} requests, peak RSS ${run.peakMiB.toFixed(0)} MiB`);
    assert.equal(run.status, 1, run.stderr);
    assert.ok(run.peakMiB < 512, `${run.peakMiB} MiB`);
  });

  it("-o policyreport writes each namespace's report once the listing has passed it", async () => {
    const denied = (namespace: string) => {
      const module = helmModule();
      module.metadata = { name: "m1", namespace };
      module.spec.config = { ...module.spec.config, replicas: 9 };
      return module;
    };
    behaviour = (req, res) => {
      if (new URL(req.url ?? "/", "https://x").searchParams.has("continue")) return;
      json(res, { kind: "ModuleList", items: [denied("a"), denied("b")], metadata: { continue: "next" } });
    };
    const run = await audit(kubeconfig, ["--request-timeout", "1s", "-o", "policyreport"]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /did not answer .* within 1 s\n$/);
    // Namespace a is done (the listing moved on to b); b may have more objects on the next page.
    const reports = loadAll(run.stdout) as { metadata: { namespace?: string }; results: unknown[] }[];
    assert.deepEqual(
      reports.map((report) => [report.metadata.namespace, report.results.length]),
      [["a", 1]],
    );
  });

  it("-o policyreport ends with one line when the API server lists out of namespace order", async () => {
    const module = (namespace: string) => ({ ...helmModule(), metadata: { name: "m", namespace } });
    behaviour = (_req, res) =>
      json(res, { kind: "ModuleList", items: [module("b"), module("a")], metadata: {} });
    const run = await audit(kubeconfig, ["-o", "policyreport"]);
    assert.equal(run.status, 2);
    assert.match(
      run.stderr,
      /^module-admission: the API server listed objects of namespace "a" after those of "b": policy reports are written a namespace at a time, in the order objects are stored\n$/,
    );
  });

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
