import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { ensureCertDir } from "../src/server/certificates.js";
import { buildForBench } from "./build.js";
import { fixedRate } from "./fixed-rate.js";
import { goDecodeWebhook } from "./go-decode.js";
import { kubeconform } from "./kubeconform.js";
import { kubeconformTarget, measureOffline, offlineTarget } from "./offline.js";
import { cpuSeconds, median, percentile } from "./process-stats.js";
import {
  configMapBody,
  deckhouseDir,
  deleteBody,
  moduleTemplateBody,
  mutateBody,
  updateBody,
  validateBody,
} from "./requests.js";
import { type BenchServer, memoryOf, post, startProcess, startServer } from "./servers.js";

/**
 * `npm run bench`: server CPU time per review, the figure a shared 2-core machine can measure (requests
 * per second depend on the load generator's share of the CPUs; CPU time per review does not). Each
 * server runs in its own process; its utime + stime from /proc/<pid>/stat over a window of load,
 * divided by the reviews it answered in it, is its cost per review. Rounds are interleaved (every
 * scenario once per round, the order rotating, each measurement taken over the same seconds as a floor
 * measurement on the same request); the ratio to the floor (a correct webhook that does nothing but parse) in each pair is the
 * robust figure, and each scenario's result is the median over rounds. Then the
 * p99 latency at a fixed rate, floor against module-admission, and a soak for memory growth.
 */
const { values: flags } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "4" },
    connections: { type: "string", default: "10" },
    rate: { type: "string", default: "500" },
    "latency-seconds": { type: "string", default: "10" },
    "soak-seconds": { type: "string", default: "60" },
    "cpu-prof": { type: "string" },
    only: { type: "string" },
    out: { type: "string", default: "bench/results.json" },
    smoke: { type: "boolean", default: false },
    // validate (offline) on this many manifests against its parse-only baseline, after the servers.
    manifests: { type: "string", default: "3000" },
    // module-admission with --metrics-bind-address 0: what recording metrics costs.
    "no-metrics": { type: "boolean", default: false },
  },
});
const smoke = flags.smoke;
const rounds = smoke ? 1 : Number(flags.rounds);
const seconds = smoke ? 0.5 : Number(flags.seconds);
const connections = Number(flags.connections);
const rate = Number(flags.rate);
const latencySeconds = smoke ? 1 : Number(flags["latency-seconds"]);
const soakSeconds = smoke ? 2 : Number(flags["soak-seconds"]);
/** Issue 34's targets: CPU per review as a multiple of the floor's (and validate's of the Go webhook's); p99 likewise; memory growth. */
const targets = {
  ratio: { validate: 1.3, mutate: 1.2, update: 1.6, moduletemplate: 1.4, configmap: 1.4 } as Record<
    string,
    number
  >,
  /** validate's CPU per review as a multiple of the Go standard-library decode webhook's. */
  goRatio: 1.0,
  p99Ratio: 1.5,
  offlineRatio: offlineTarget,
  /** validate's CPU offline as a multiple of kubeconform's on the same files and schemas. */
  kubeconformRatio: kubeconformTarget,
  heapGrowth: 0.05,
  rssGrowth: 0.1,
};

const certDir = mkdtempSync(join(tmpdir(), "module-admission-bench-"));
await ensureCertDir(certDir, ["localhost"]);
const ca = readFileSync(join(certDir, "ca.crt"), "utf8");

interface Scenario {
  id: string;
  label: string;
  server: () => BenchServer;
  path: string;
  body: string;
  /** What a correct answer from this server looks like; checked once before measuring. */
  expect(reply: { status: number; json: unknown }): string | undefined;
}

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const mutatePath = "/mutate-batch-forkspacer-com-v1-module";
const moduleTemplatePath = "/validate-operator-kyma-project-io-v1beta2-moduletemplate";
const configMapPath = "/validate-addon-operator-configmap";

type Answer = { response?: { uid?: string; allowed?: boolean; patch?: string; status?: unknown } };
const allowed = (reply: { status: number; json: unknown }) => {
  const response = (reply.json as Answer).response;
  if (
    reply.status !== 200 ||
    response?.uid !== "705ab4f5-6393-11e8-b7cc-42010a800003" ||
    response.allowed !== true
  )
    return `expected an allowed review, got ${reply.status} ${JSON.stringify(reply.json).slice(0, 400)}`;
  return undefined;
};
const ratcheted = (reply: { status: number; json: unknown }) => {
  const warnings = (reply.json as { response?: { warnings?: string[] } }).response?.warnings;
  return (
    allowed(reply) ??
    (warnings?.[0]?.startsWith("already invalid")
      ? undefined
      : `the update was not ratcheted: ${JSON.stringify(reply.json)}`)
  );
};
const patched = (reply: { status: number; json: unknown }) =>
  allowed(reply) ??
  (Buffer.from((reply.json as Answer).response?.patch ?? "", "base64")
    .toString()
    .includes("/spec/helm/releaseName")
    ? undefined
    : "mutate did not set a release name");

const servers: Record<string, BenchServer> = {};
const server = (name: string) => () => servers[name] as BenchServer;
const scenarios: Scenario[] = [
  {
    id: "bare",
    label: "bare node:https, body drained, fixed answer",
    server: server("bare"),
    path: validatePath,
    body: validateBody,
    expect: (reply) => (reply.status === 200 ? undefined : `status ${reply.status}`),
  },
  {
    id: "floor",
    label: "floor: node:https, JSON.parse, answer with the uid",
    server: server("floor"),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  },
  {
    id: "express",
    label: "floor with express 5 + express.json()",
    server: server("express"),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  },
  {
    id: "go-decode",
    label: "Go standard library webhook: decode the review and the Module, answer",
    server: server("go-decode"),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  },
  {
    id: "worker-floor",
    label: "floor with isolation: the review parsed in a worker thread, the answer's bytes back",
    server: server("worker-floor"),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  },
  {
    id: "protocol",
    label: "module-admission: a Module DELETE (no rule runs: HTTP and protocol layer)",
    server: server("module-admission"),
    path: validatePath,
    body: deleteBody,
    expect: allowed,
  },
  {
    id: "validate",
    label: "module-admission: validate a Module",
    server: server("module-admission"),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  },
  {
    id: "mutate",
    label: "module-admission: mutate a Module",
    server: server("module-admission"),
    path: mutatePath,
    body: mutateBody,
    expect: patched,
  },
  {
    id: "update",
    label: "module-admission: a Module UPDATE, ratcheted (two verdicts)",
    server: server("module-admission"),
    path: validatePath,
    body: updateBody,
    expect: ratcheted,
  },
  {
    id: "moduletemplate",
    label: "module-admission: validate a Kyma ModuleTemplate",
    server: server("module-admission"),
    path: moduleTemplatePath,
    body: moduleTemplateBody,
    expect: allowed,
  },
  {
    id: "configmap",
    label: "module-admission: validate ConfigMap/addon-operator",
    server: server("module-admission"),
    path: configMapPath,
    body: configMapBody,
    expect: allowed,
  },
];

// --only validate,mutate: those scenarios and the floor, for quick comparisons while working on one path.
if (flags.only) {
  const only = new Set(["floor", ...flags.only.split(",")]);
  scenarios.splice(0, scenarios.length, ...scenarios.filter((scenario) => only.has(scenario.id)));
}

/**
 * Server CPU microseconds per review over `seconds` of load on `connections` keep-alive connections:
 * its CPU time over that window divided by the reviews it answered in it. A window of time rather
 * than a number of reviews, so that a scenario and the floor measured with it share every second
 * of it (with a number of reviews, the faster one finishes first and the other runs its tail alone).
 */
async function cpuPerReview(scenario: Scenario, seconds: number): Promise<number> {
  const target = scenario.server();
  const pid = target.child.pid as number;
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url: `https://127.0.0.1:${target.port}${scenario.path}`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: scenario.body,
    connections,
    duration: seconds,
  });
  const used = cpuSeconds(pid) - before;
  if (result.errors + result.timeouts + result.non2xx > 0 || result["2xx"] === 0)
    throw new Error(
      `${scenario.id}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx, ${result["2xx"]} answered`,
    );
  return (used / result["2xx"]) * 1e6;
}

async function p99(target: BenchServer, requests: { path: string; body: string }[]) {
  const result = await fixedRate({
    port: target.port,
    ca,
    rate,
    seconds: latencySeconds,
    connections,
    requests,
  });
  if (result.failed > 0)
    throw new Error(`${target.name}: ${result.failed} of ${result.sent} requests failed`);
  return { p50Ms: percentile(result.latenciesMs, 0.5), p99Ms: percentile(result.latenciesMs, 0.99) };
}

/** A fixed rate of every module-admission request for `soakSeconds`; memory after warm-up and at the end. */
async function soak(target: BenchServer) {
  const requests = scenarios.filter((scenario) => scenario.server() === target);
  // After the CPU rounds the heap and RSS are at their high-throughput size; a quarter of the soak at its
  // own rate lets them settle before the start is taken.
  const warmUpSeconds = Math.max(1, soakSeconds / 4);
  const run = fixedRate({ port: target.port, ca, rate, seconds: soakSeconds, connections, requests });
  await new Promise((resolve) => setTimeout(resolve, warmUpSeconds * 1000));
  const start = await memoryOf(target);
  const result = await run;
  const end = await memoryOf(target);
  const growth = (a: number | null, b: number | null) => (a && b ? b / a - 1 : Number.NaN);
  return {
    seconds: soakSeconds,
    rate,
    warmUpSeconds,
    requests: result.sent,
    failed: result.failed,
    heapAfterGcMiB: [start.heapUsed, end.heapUsed].map((bytes) => (bytes ?? Number.NaN) / 2 ** 20),
    heapGrowth: growth(start.heapUsed, end.heapUsed),
    rssMiB: [start.rss, end.rss].map((bytes) => bytes / 2 ** 20),
    rssGrowth: growth(start.rss, end.rss),
  };
}

const root = fileURLToPath(new URL("..", import.meta.url));
buildForBench(root);
const compiled = (name: string) => join(root, ".bench-build/bench/servers", `${name}.js`);
const comparison = (name: string) => startServer(name, ca, [compiled(name), certDir, "$PORT"]);
const goDecode = await goDecodeWebhook();
if ("skipped" in goDecode) {
  process.stderr.write(`${goDecode.skipped}\n`);
  scenarios.splice(
    scenarios.findIndex((scenario) => scenario.id === "go-decode"),
    1,
  );
}
try {
  if ("binary" in goDecode)
    servers["go-decode"] = await startProcess("go-decode", ca, goDecode.binary, [certDir, "$PORT"]);
  servers.bare = await comparison("bare");
  servers.floor = await comparison("floor");
  servers.express = await comparison("express-floor");
  servers["worker-floor"] = await comparison("worker-floor");
  servers["module-admission"] = await startServer("module-admission", ca, [
    ...(flags["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", flags["cpu-prof"]] : []),
    "--import",
    pathToFileURL(compiled("memory-probe")).href,
    join(root, "dist/cli/main.js"),
    "serve",
    "--port",
    "$PORT",
    "--cert-dir",
    certDir,
    ...(flags["no-metrics"] ? ["--metrics-bind-address", "0"] : ["--metrics-port", "0"]),
    "--drain-seconds",
    "0",
    "--modules-dir",
    join(deckhouseDir, "modules"),
    "--global-hooks-dir",
    join(deckhouseDir, "global-hooks"),
  ]);
  for (const scenario of scenarios) {
    const problem = scenario.expect(await post(ca, scenario.server().port, scenario.path, scenario.body));
    if (problem) throw new Error(`${scenario.id}: ${problem}`);
    // Warm-up: the JIT has seen the hot path before anything is measured.
    await cpuPerReview(scenario, Math.max(0.5, seconds / 4));
  }
  // Each scenario's measurement is paired with a floor measurement just before it, so that both see the
  // same machine load; the ratio of each pair is the robust figure, its median over rounds the result.
  const floorScenario = scenarios.find((scenario) => scenario.id === "floor") as Scenario;
  const others = scenarios.filter((scenario) => scenario !== floorScenario);
  const micros: Record<string, number[]> = Object.fromEntries(scenarios.map((s) => [s.id, []]));
  const ratios: Record<string, number[]> = Object.fromEntries(scenarios.map((s) => [s.id, []]));
  for (let round = 0; round < rounds; round++) {
    const order = others.map((_, i) => others[(i + round) % others.length] as Scenario);
    for (const scenario of order) {
      // The floor parses the same request: its cost grows with the body (TLS, JSON.parse), and a
      // scenario must not be compared with a floor that reads a larger or smaller one.
      // Both at once, over the same seconds: the machine's load (other processes, CPU frequency) then
      // weighs on the pair alike. One after the other, pair ratios spread by 2x on this shared machine.
      const [floor, measured] = await Promise.all([
        cpuPerReview({ ...floorScenario, body: scenario.body }, seconds),
        cpuPerReview(scenario, seconds),
      ]);
      if (scenario.body === floorScenario.body) {
        micros.floor?.push(floor);
        ratios.floor?.push(1);
      }
      micros[scenario.id]?.push(measured);
      ratios[scenario.id]?.push(measured / floor);
    }
    process.stderr.write(
      `round ${round + 1}/${rounds}: ${others.map((s) => `${s.id} ${micros[s.id]?.at(-1)?.toFixed(0)} µs (${ratios[s.id]?.at(-1)?.toFixed(2)}×)`).join(", ")}\n`,
    );
  }
  // With --only and no scenario on the validate body, the floor has no row of its own.
  const measured = scenarios.filter((scenario) => (micros[scenario.id]?.length ?? 0) > 0);
  const rows = measured.map((scenario) => {
    const cpu = micros[scenario.id] as number[];
    const paired = ratios[scenario.id] as number[];
    return {
      id: scenario.id,
      scenario: scenario.label,
      cpuMicrosPerReview: median(cpu),
      cpuMicrosRange: [Math.min(...cpu), Math.max(...cpu)],
      ratioToFloor: median(paired),
      ratioRange: [Math.min(...paired), Math.max(...paired)],
      target: targets.ratio[scenario.id] ?? null,
    };
  });
  const versusGo = goComparison(ratios);
  const versusIsolated = ratioOfRatios(ratios, "worker-floor");
  if (flags.only) {
    process.stdout.write(`\n${cpuTable(rows)}\n${goLine(versusGo)}\n${isolatedLine(versusIsolated)}\n`);
  } else {
    await latencyAndSoak(rows, versusGo, versusIsolated);
  }
} finally {
  await Promise.all(Object.values(servers).map((running) => running.stop()));
}

/**
 * validate's CPU per review against the Go decode webhook's: in each round, the ratio of their ratios to
 * the floor (each measured beside its own floor, on the same validate body), the median over rounds.
 */
function goComparison(ratios: Record<string, number[]>) {
  const validate = ratios.validate ?? [];
  const go = ratios["go-decode"] ?? [];
  if (validate.length === 0 || go.length !== validate.length)
    return {
      measured: false as const,
      why: "skipped" in goDecode ? goDecode.skipped : "validate and go-decode not both measured",
    };
  const quotients = validate.map((ratio, i) => ratio / (go[i] as number));
  return {
    measured: true as const,
    validateToGo: median(quotients),
    range: [Math.min(...quotients), Math.max(...quotients)],
    target: targets.goRatio,
  };
}

/**
 * validate's CPU per review against another server's, measured on the validate body: per round the
 * ratio of their ratios to the floor, the median over rounds; null when either was not measured.
 */
function ratioOfRatios(ratios: Record<string, number[]>, id: string) {
  const validate = ratios.validate ?? [];
  const other = ratios[id] ?? [];
  if (validate.length === 0 || other.length !== validate.length) return null;
  const quotients = validate.map((ratio, i) => ratio / (other[i] as number));
  return { validateToIt: median(quotients), range: [Math.min(...quotients), Math.max(...quotients)] };
}

/** What module-admission costs beyond crossing to a worker: no target, the issue's targets are to the floor. */
function isolatedLine(versus: ReturnType<typeof ratioOfRatios>): string {
  return versus
    ? `validate against the floor with isolation: ${versus.validateToIt.toFixed(2)}× (${versus.range.map((v) => v.toFixed(2)).join("–")})`
    : "validate against the floor with isolation: not measured (validate and worker-floor not both run)";
}

function goLine(versusGo: ReturnType<typeof goComparison>): string {
  return versusGo.measured
    ? `validate against the Go decode webhook: ${versusGo.validateToGo.toFixed(2)}× (${versusGo.range.map((v) => v.toFixed(2)).join("–")}; target ≤ ${versusGo.target}×)`
    : `validate against the Go decode webhook: NOT MEASURED (${versusGo.why})`;
}

type Row = {
  id: string;
  scenario: string;
  cpuMicrosPerReview: number;
  cpuMicrosRange: number[];
  ratioToFloor: number;
  ratioRange: number[];
  target: number | null;
};

async function latencyAndSoak(
  rows: Row[],
  versusGo: ReturnType<typeof goComparison>,
  versusIsolated: ReturnType<typeof ratioOfRatios>,
) {
  // p99 at a fixed rate: floor and module-admission (validate) alternately, twice each.
  const latency = {
    floor: [] as { p50Ms: number; p99Ms: number }[],
    moduleAdmission: [] as { p50Ms: number; p99Ms: number }[],
  };
  const floor = servers.floor as BenchServer;
  const moduleAdmission = servers["module-admission"] as BenchServer;
  for (let round = 0; round < (smoke ? 1 : 2); round++) {
    latency.floor.push(await p99(floor, [{ path: validatePath, body: validateBody }]));
    latency.moduleAdmission.push(await p99(moduleAdmission, [{ path: validatePath, body: validateBody }]));
  }
  const latencyRow = {
    rate,
    seconds: latencySeconds,
    connections,
    floorP99Ms: median(latency.floor.map((run) => run.p99Ms)),
    moduleAdmissionP99Ms: median(latency.moduleAdmission.map((run) => run.p99Ms)),
    runs: latency,
    ratio: 0,
    target: targets.p99Ratio,
  };
  latencyRow.ratio = latencyRow.moduleAdmissionP99Ms / latencyRow.floorP99Ms;
  const soakResult = await soak(moduleAdmission);
  const offline = measureOffline({
    root,
    built: join(root, ".bench-build"),
    total: smoke ? 300 : Number(flags.manifests),
    rounds: smoke ? 1 : 3,
    kubeconform: await kubeconform(),
  });
  report(rows, versusGo, versusIsolated, latencyRow, soakResult, offline);
}

function cpuTable(rows: Row[]): string {
  return [
    "| server | CPU per review µs (range) | × floor (range) | target |",
    "|---|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.cpuMicrosPerReview.toFixed(0)} (${row.cpuMicrosRange.map((v) => v.toFixed(0)).join("–")}) | ${row.ratioToFloor.toFixed(2)} (${row.ratioRange.map((v) => v.toFixed(2)).join("–")}) | ${row.target === null ? "" : `≤ ${row.target}`} |`,
    ),
  ].join("\n");
}

function report(
  rows: Row[],
  versusGo: ReturnType<typeof goComparison>,
  versusIsolated: ReturnType<typeof ratioOfRatios>,
  latency: { floorP99Ms: number; moduleAdmissionP99Ms: number; ratio: number },
  soakResult: Awaited<ReturnType<typeof soak>>,
  offline: ReturnType<typeof measureOffline>,
) {
  const met = {
    ratios: rows.every((row) => row.target === null || row.ratioToFloor <= row.target),
    // null: not measured (no Go on PATH), said so on the output.
    goWebhook: versusGo.measured ? versusGo.validateToGo <= versusGo.target : null,
    p99: latency.ratio <= targets.p99Ratio,
    heap: Math.abs(soakResult.heapGrowth) <= targets.heapGrowth,
    rss: Math.abs(soakResult.rssGrowth) <= targets.rssGrowth,
    noFailures: soakResult.failed === 0,
    offline: offline.cpuRatioToParseOnly <= targets.offlineRatio,
    // null: not measured (no Go on PATH), said so on the output.
    offlineKubeconform: offline.versusKubeconform.measured
      ? offline.versusKubeconform.cpuRatio <= targets.kubeconformRatio
      : null,
  };
  const versusKubeconform = offline.versusKubeconform;
  const table = cpuTable(rows);
  const fmt = (n: number) => n.toFixed(1);
  process.stdout.write(
    `\n${table}\n${goLine(versusGo)}\n${isolatedLine(versusIsolated)}\n\np99 at ${rate} reviews/s (validate): floor ${fmt(latency.floorP99Ms)} ms, module-admission ${fmt(latency.moduleAdmissionP99Ms)} ms, ${latency.ratio.toFixed(2)}× (target ≤ ${targets.p99Ratio}×)\n` +
      `soak: ${soakResult.rate} reviews/s for ${soakResult.seconds} s, ${soakResult.requests} reviews, ${soakResult.failed} failed; heap after GC ${soakResult.heapAfterGcMiB.map(fmt).join(" → ")} MiB (${(soakResult.heapGrowth * 100).toFixed(1)}%), RSS ${soakResult.rssMiB.map(fmt).join(" → ")} MiB (${(soakResult.rssGrowth * 100).toFixed(1)}%)\n` +
      `validate on ${offline.manifests} manifests: ${offline.validateCpuSeconds} s of CPU against ${offline.parseOnlyCpuSeconds} s to parse them, ${offline.cpuRatioToParseOnly}× (target ≤ ${targets.offlineRatio}×; wall ${offline.wallRatioToParseOnly}×)\n` +
      `${versusKubeconform.measured ? `kubeconform ${versusKubeconform.version} on the same files and schemas: ${versusKubeconform.kubeconformCpuSeconds} s of CPU; validate ${versusKubeconform.cpuRatio}× (${versusKubeconform.cpuRatioRange.join("–")}; target ≤ ${targets.kubeconformRatio}×)` : `validate against kubeconform: NOT MEASURED (${versusKubeconform.why})`}\n` +
      `${rounds} rounds of ${seconds} s on ${connections} connections; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} on ${cpus().length} CPUs\n` +
      `targets: ratios ${met.ratios ? "met" : "MISSED"}, Go webhook ${met.goWebhook === null ? "NOT MEASURED" : met.goWebhook ? "met" : "MISSED"}, p99 ${met.p99 ? "met" : "MISSED"}, heap ${met.heap ? "met" : "MISSED"}, RSS ${met.rss ? "met" : "MISSED"}, no failures ${met.noFailures ? "met" : "MISSED"}, offline ${met.offline ? "met" : "MISSED"}, offline against kubeconform ${met.offlineKubeconform === null ? "NOT MEASURED" : met.offlineKubeconform ? "met" : "MISSED"}\n`,
  );
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    loadAverageAtEnd: loadavg(),
  };
  writeFileSync(
    flags.out,
    `${JSON.stringify({ date: new Date().toISOString(), smoke, machine, method: { rounds, secondsPerMeasurement: seconds, connections }, targets, met, rows, versusGo, versusIsolated, latency, soak: soakResult, offline }, null, 2)}\n`,
  );
}
