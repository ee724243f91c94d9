import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { ensureCertDir } from "../src/server/certificates.js";
import { mutateBody, updateBody, validateBody } from "./requests.js";

/**
 * `npm run bench`: module-admission against the ceiling (a bare node:https server answering a fixed
 * AdmissionReview) on this machine, in one run, with autocannon. Prints a table, writes results.json.
 * Every module-admission run is paired with a ceiling run just before it, so that both see the same
 * machine load; the ratio is between the two.
 */
const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    "soak-seconds": { type: "string", default: "60" },
    "soak-rate": { type: "string", default: "500" },
    out: { type: "string", default: "bench/results.json" },
    smoke: { type: "boolean", default: false },
  },
});
const duration = flags.smoke ? 1 : Number(flags.duration);
const connections = Number(flags.connections);
const soakSeconds = flags.smoke ? 2 : Number(flags["soak-seconds"]);
const soakRate = Number(flags["soak-rate"]);
const targets = { minRatio: 0.75, maxP99Ms: 5, maxRssGrowth: 0.1 };
const validatePath = "/validate-batch-forkspacer-com-v1-module";
const mutatePath = "/mutate-batch-forkspacer-com-v1-module";

interface Server {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

interface Row {
  scenario: string;
  workers: number;
  configCache: boolean | null;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ceilingRequestsPerSecond: number;
  ratio: number;
  errors: number;
  non2xx: number;
}

const certDir = mkdtempSync(join(tmpdir(), "module-admission-bench-"));
await ensureCertDir(certDir, ["localhost"]);
const ca = readFileSync(join(certDir, "ca.crt"), "utf8");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function post(port: number, path: string, body: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        ca,
        servername: "localhost",
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function waitReady(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready`);
    const ok = await post(port, "/readyz", "").then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("server did not become ready in 60 s");
}

async function start(script: string, args: string[], env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", script, ...args.map((a) => a.replace("$PORT", String(port)))],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, ...env },
    },
  );
  await waitReady(port, child);
  return {
    port,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const startCeiling = () => start("bench/ceiling-server.ts", [certDir, "$PORT"]);
const startModuleAdmission = async (workers: number, configCache: boolean) =>
  start(
    "bench/serve-module-admission.ts",
    [
      "--port",
      "$PORT",
      "--cert-dir",
      certDir,
      "--metrics-port",
      "0",
      "--workers",
      String(workers),
      "--drain-seconds",
      "0",
    ],
    configCache ? {} : { BENCH_CONFIG_CACHE: "off" },
  );

async function load(port: number, path: string, body: string) {
  const result = await autocannon({
    url: `https://127.0.0.1:${port}${path}`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    connections,
    duration,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** The answers must be the real thing: an admitted Module, a patch with a release name. */
async function checkAnswers(port: number): Promise<void> {
  const validated = (await post(port, validatePath, validateBody)).json as {
    response: { allowed: boolean; status?: unknown };
  };
  if (validated.response.allowed !== true)
    throw new Error(`validate denied the bench Module: ${JSON.stringify(validated.response.status)}`);
  const updated = (await post(port, validatePath, updateBody)).json as {
    response: { allowed: boolean; warnings?: string[] };
  };
  if (updated.response.allowed !== true || !updated.response.warnings?.[0]?.startsWith("already invalid"))
    throw new Error(`the bench update was not ratcheted: ${JSON.stringify(updated.response)}`);
  const mutated = (await post(port, mutatePath, mutateBody)).json as { response: { patch?: string } };
  const patch = Buffer.from(mutated.response.patch ?? "", "base64").toString();
  if (!patch.includes("/spec/helm/releaseName"))
    throw new Error(`mutate did not set a release name: ${patch}`);
}

const scenarios = [
  { scenario: "validate", path: validatePath, body: validateBody, workers: 1, configCache: true },
  { scenario: "mutate", path: mutatePath, body: mutateBody, workers: 1, configCache: true },
  { scenario: "update, ratcheted", path: validatePath, body: updateBody, workers: 1, configCache: true },
  {
    scenario: "validate, config validator cache off",
    path: validatePath,
    body: validateBody,
    workers: 1,
    configCache: false,
  },
  { scenario: "validate, 2 workers", path: validatePath, body: validateBody, workers: 2, configCache: true },
  { scenario: "mutate, 2 workers", path: mutatePath, body: mutateBody, workers: 2, configCache: true },
];

const ceiling = await startCeiling();
const rows: Row[] = [];
const servers = new Map<string, Server>();
try {
  for (const scenario of scenarios) {
    const key = `${scenario.workers}/${scenario.configCache}`;
    let server = servers.get(key);
    if (!server) {
      server = await startModuleAdmission(scenario.workers, scenario.configCache);
      await checkAnswers(server.port);
      // Warm-up: let the JIT see the hot path before measuring.
      await load(server.port, scenario.path, scenario.body);
      servers.set(key, server);
    }
    const base = await load(ceiling.port, scenario.path, scenario.body);
    const measured = await load(server.port, scenario.path, scenario.body);
    const row: Row = {
      scenario: scenario.scenario,
      workers: scenario.workers,
      configCache: scenario.path === validatePath ? scenario.configCache : null,
      ...measured,
      ceilingRequestsPerSecond: base.requestsPerSecond,
      ratio: measured.requestsPerSecond / base.requestsPerSecond,
    };
    rows.push(row);
    process.stderr.write(
      `${row.scenario}: ${Math.round(row.requestsPerSecond)} req/s, ratio ${row.ratio.toFixed(2)}\n`,
    );
  }
  const soak = await runSoak(servers.get("1/true") as Server);
  report(rows, soak);
} finally {
  await Promise.all([ceiling.stop(), ...[...servers.values()].map((server) => server.stop())]);
}

/** A fixed rate of mixed validate and mutate requests; resident memory near the start and at the end. */
async function runSoak(server: Server) {
  const rssBytes = () => {
    const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
  };
  // Start is measured a tenth into the soak, once the heap has settled at the soak's rate.
  let startRss = 0;
  const settled = setTimeout(() => {
    startRss = rssBytes();
  }, soakSeconds * 100);
  const result = await autocannon({
    url: `https://127.0.0.1:${server.port}`,
    connections: 10,
    overallRate: soakRate,
    duration: soakSeconds,
    requests: [
      {
        method: "POST",
        path: validatePath,
        headers: { "content-type": "application/json" },
        body: validateBody,
      },
      { method: "POST", path: mutatePath, headers: { "content-type": "application/json" }, body: mutateBody },
    ],
  });
  clearTimeout(settled);
  const endRss = rssBytes();
  return {
    seconds: soakSeconds,
    rate: soakRate,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    startRssMiB: startRss / 2 ** 20,
    endRssMiB: endRss / 2 ** 20,
    growth: endRss / startRss - 1,
  };
}

function report(rows: Row[], soak: Awaited<ReturnType<typeof runSoak>>) {
  const primary = rows.filter((row) => row.workers === 1 && row.configCache !== false);
  const met = {
    ratio: primary.every((row) => row.ratio >= targets.minRatio),
    p99: primary.every((row) => row.p99Ms <= targets.maxP99Ms),
    noErrors:
      rows.every((row) => row.errors === 0 && row.non2xx === 0) && soak.errors === 0 && soak.non2xx === 0,
    flatMemory: Math.abs(soak.growth) <= targets.maxRssGrowth,
  };
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    loadAverage: loadavg(),
  };
  const table = [
    "| scenario | req/s | p50 ms | p99 ms | ceiling req/s | ratio |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${Math.round(row.requestsPerSecond)} | ${row.p50Ms} | ${row.p99Ms} | ${Math.round(row.ceilingRequestsPerSecond)} | ${row.ratio.toFixed(2)} |`,
    ),
  ].join("\n");
  const soakLine = `soak: ${soak.rate} req/s for ${soak.seconds} s, ${soak.requests} requests, ${soak.errors + soak.non2xx} failed; RSS ${soak.startRssMiB.toFixed(1)} MiB → ${soak.endRssMiB.toFixed(1)} MiB (${(soak.growth * 100).toFixed(1)}%)`;
  process.stdout.write(
    `\n${table}\n\n${soakLine}\nconnections ${connections}, ${duration} s per run; load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        " ",
      )} on ${machine.cpus} CPUs\ntargets (1 worker, validate and mutate): ratio ≥ ${targets.minRatio} ${met.ratio ? "met" : "MISSED"}, p99 ≤ ${targets.maxP99Ms} ms ${met.p99 ? "met" : "MISSED"}; no failed requests ${met.noErrors ? "met" : "MISSED"}; RSS flat within 10% ${met.flatMemory ? "met" : "MISSED"}\n`,
  );
  writeFileSync(
    flags.out,
    `${JSON.stringify({ date: new Date().toISOString(), machine, connections, durationSeconds: duration, targets, met, rows, soak }, null, 2)}\n`,
  );
}
