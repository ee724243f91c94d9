import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { ensureCertDir } from "../src/server/certificates.js";
import { buildForBench } from "./build.js";
import { fixedRate } from "./fixed-rate.js";
import { controllerRuntimeTool, goDecodeTool, goPeer } from "./go-peers.js";
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
    // The load of the CPU rounds: reviews per second at a fixed rate (open loop), or `saturation`
    // (closed loop, `--connections` connections each sending its next request once answered).
    rates: { type: "string", default: "200,1000,saturation" },
    // A/B: another build of module-admission (a project root whose dist/ is built, e.g. a worktree of
    // main after `npm run compile`) measured in the same rounds, each of its scenarios beside its own floor.
    baseline: { type: "string" },
    // Variants of a comparison server (bench/servers/NAME.ts, comma-separated) measured as rows on the
    // validate request in the same rounds, each beside its own floor, and each against the floor with
    // isolation (issue 42's crossing experiments: --only worker-floor --variants NAME,NAME).
    variants: { type: "string" },
  },
});
const smoke = flags.smoke;
const rounds = smoke ? 1 : Number(flags.rounds);
const seconds = smoke ? 0.5 : Number(flags.seconds);
const connections = Number(flags.connections);
const rate = Number(flags.rate);
const latencySeconds = smoke ? 1 : Number(flags["latency-seconds"]);
const soakSeconds = smoke ? 2 : Number(flags["soak-seconds"]);
type Rate = number | "saturation";
const rates: Rate[] = (smoke ? "1000,saturation" : flags.rates)
  .split(",")
  .map((rate) => (rate === "saturation" ? rate : Number(rate)));
/**
 * Issue 42's targets: CPU per review as a multiple of the controller-runtime webhook's (the operators' own
 * stack), at every rate; validate's of the floor with isolation's, and that one's of the floor, at 1,000/s;
 * p99 against the floor's; memory growth; offline against its parse-only baseline and kubeconform.
 */
const targets = {
  controllerRuntime: {
    validate: 1.0,
    mutate: 1.2,
    update: 1.2,
    moduletemplate: 1.2,
    configmap: 1.2,
  } as Record<string, number>,
  /** validate's CPU per review as a multiple of the floor with isolation's, at 1,000/s. */
  workerFloorRatio: 1.3,
  /** The floor with isolation's CPU per review as a multiple of the floor's, at 1,000/s. */
  isolationRatio: 1.5,
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
const serverGetters = new Map<string, () => BenchServer>();
/** The same getter for the same name, so that a scenario's server can be compared by identity. */
const server = (name: string) => {
  const getter = serverGetters.get(name) ?? (() => servers[name] as BenchServer);
  serverGetters.set(name, getter);
  return getter;
};
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
    id: "controller-runtime",
    label: "controller-runtime v0.22.1 webhook: decode the Module into its Go type, admit",
    server: server("controller-runtime"),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  },
  {
    id: "worker-floor",
    label: "floor with isolation: the review parsed in a worker thread, crossing through shared memory",
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
const variants = flags.variants ? flags.variants.split(",") : [];
for (const name of variants)
  scenarios.push({
    id: name,
    label: `variant bench/servers/${name}.ts`,
    server: server(name),
    path: validatePath,
    body: validateBody,
    expect: allowed,
  });
/** module-admission's scenarios, which --baseline measures on the other build too. */
const productScenarios = scenarios.filter((scenario) => scenario.server === server("module-admission"));
if (flags.baseline) {
  for (const scenario of [...productScenarios])
    scenarios.push({
      ...scenario,
      id: `${scenario.id}@baseline`,
      label: `${scenario.label} (baseline build)`,
      server: server("baseline"),
    });
}

/**
 * Server CPU microseconds per review over `seconds` of load on `connections` keep-alive connections:
 * its CPU time over that window divided by the reviews it answered in it. A window of time rather
 * than a number of reviews, so that a scenario and the floor measured with it share every second
 * of it (with a number of reviews, the faster one finishes first and the other runs its tail alone).
 * At a fixed rate the requests leave on schedule (bench/fixed-rate.ts) and every one must be answered.
 */
async function cpuPerReview(
  scenario: Scenario,
  seconds: number,
  load: Rate,
  { warmUp = false } = {},
): Promise<number> {
  const target = scenario.server();
  const pid = target.child.pid as number;
  const before = cpuSeconds(pid);
  if (load !== "saturation") {
    const { path, body } = scenario;
    const result = await fixedRate({
      port: target.port,
      ca,
      rate: load,
      seconds,
      connections,
      requests: [{ path, body }],
    });
    const used = cpuSeconds(pid) - before;
    if (result.failed > 0)
      throw new Error(`${scenario.id} at ${load}/s: ${result.failed} of ${result.sent} failed`);
    return (used / result.sent) * 1e6;
  }
  const result = await autocannon({
    url: `https://127.0.0.1:${target.port}${scenario.path}`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: scenario.body,
    connections,
    duration: seconds,
  });
  const used = cpuSeconds(pid) - before;
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0 && warmUp)
    process.stderr.write(
      `${scenario.id} warm-up: ${failed} of ${result.requests.total} not answered 2xx (${JSON.stringify(result.statusCodeStats)})\n`,
    );
  if ((failed > 0 && !warmUp) || result["2xx"] === 0)
    throw new Error(
      `${scenario.id}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result["2xx"]} answered`,
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
// Only the Go peers a scenario of this run measures are built.
const wanted = (id: string) => scenarios.some((scenario) => scenario.id === id);
const goPeers = {
  "go-decode": wanted("go-decode") ? await goPeer(goDecodeTool) : null,
  "controller-runtime": wanted("controller-runtime") ? await goPeer(controllerRuntimeTool) : null,
};
for (const [id, peer] of Object.entries(goPeers)) {
  if (peer === null || !("skipped" in peer)) continue;
  process.stderr.write(`${peer.skipped}\n`);
  scenarios.splice(
    scenarios.findIndex((scenario) => scenario.id === id),
    1,
  );
}
try {
  for (const [id, peer] of Object.entries(goPeers))
    if (peer !== null && "binary" in peer)
      servers[id] = await startProcess(id, ca, peer.binary, [certDir, "$PORT"]);
  servers.bare = await comparison("bare");
  servers.floor = await comparison("floor");
  servers.express = await comparison("express-floor");
  servers["worker-floor"] = await comparison("worker-floor");
  for (const name of variants) servers[name] = await comparison(name);
  servers["module-admission"] = await moduleAdmission("module-admission", root);
  if (flags.baseline) servers.baseline = await moduleAdmission("baseline", flags.baseline);
  for (const scenario of scenarios) {
    const problem = scenario.expect(await post(ca, scenario.server().port, scenario.path, scenario.body));
    if (problem) throw new Error(`${scenario.id}: ${problem}`);
    // Warm-up: the JIT has seen the hot path before anything is measured. A worker's first reviews of
    // a kind pay its cold start (the addon-operator module tree); under load one may answer 500 (its wall
    // limit passed before its uid was noted, docs/operations.md): counted here, never in a measurement.
    await cpuPerReview(scenario, Math.max(0.5, seconds / 4), "saturation", { warmUp: true });
  }
  const byRate = [];
  for (const load of rates) byRate.push(await measureAtRate(load));
  process.stdout.write(byRate.map(rateReport).join("\n"));
  if (!flags.only) await latencyAndSoak(byRate);
} finally {
  await Promise.all(Object.values(servers).map((running) => running.stop()));
}

/** `serve` from the build in `projectRoot` (its bundled dist/cli/main.js), with metrics and the default review log. */
function moduleAdmission(name: string, projectRoot: string): Promise<BenchServer> {
  return startServer(name, ca, [
    ...(flags["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", join(flags["cpu-prof"], name)] : []),
    "--import",
    pathToFileURL(compiled("memory-probe")).href,
    join(projectRoot, "dist/cli/main.js"),
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
}

/**
 * Every scenario at one load, in interleaved rounds. Each scenario's measurement is paired with a floor
 * measurement over the same seconds, so that both see the same machine load; the ratio of each pair is
 * the robust figure, its median over rounds the result.
 */
async function measureAtRate(load: Rate) {
  const floorScenario = scenarios.find((scenario) => scenario.id === "floor") as Scenario;
  const others = scenarios.filter((scenario) => scenario !== floorScenario);
  const micros: Record<string, number[]> = Object.fromEntries(scenarios.map((s) => [s.id, []]));
  const ratios: Record<string, number[]> = Object.fromEntries(scenarios.map((s) => [s.id, []]));
  const loadAverages: number[] = [];
  for (let round = 0; round < rounds; round++) {
    loadAverages.push(loadavg()[0] as number);
    const order = others.map((_, i) => others[(i + round) % others.length] as Scenario);
    for (const scenario of order) {
      // The floor parses the same request: its cost grows with the body (TLS, JSON.parse), and a
      // scenario must not be compared with a floor that reads a larger or smaller one.
      // Both at once, over the same seconds: the machine's load (other processes, CPU frequency) then
      // weighs on the pair alike. One after the other, pair ratios spread by 2x on this shared machine.
      const [floor, measured] = await Promise.all([
        cpuPerReview({ ...floorScenario, body: scenario.body }, seconds, load),
        cpuPerReview(scenario, seconds, load),
      ]);
      if (scenario.body === floorScenario.body) {
        micros.floor?.push(floor);
        ratios.floor?.push(1);
      }
      micros[scenario.id]?.push(measured);
      ratios[scenario.id]?.push(measured / floor);
    }
    process.stderr.write(
      `${rateName(load)}, round ${round + 1}/${rounds} (load average ${loadavg()[0]?.toFixed(1)}): ${others.map((s) => `${s.id} ${micros[s.id]?.at(-1)?.toFixed(0)} µs (${ratios[s.id]?.at(-1)?.toFixed(2)}×)`).join(", ")}\n`,
    );
  }
  // With --only and no scenario on the validate body, the floor has no row of its own.
  const measured = scenarios.filter((scenario) => (micros[scenario.id]?.length ?? 0) > 0);
  const rows: Row[] = measured.map((scenario) => {
    const cpu = micros[scenario.id] as number[];
    const paired = ratios[scenario.id] as number[];
    return {
      id: scenario.id,
      scenario: scenario.label,
      cpuMicrosPerReview: median(cpu),
      cpuMicrosRange: [Math.min(...cpu), Math.max(...cpu)],
      // Reviews one core answers per second at this cost.
      capacityPerCore: 1e6 / median(cpu),
      ratioToFloor: median(paired),
      ratioRange: [Math.min(...paired), Math.max(...paired)],
    };
  });
  const versusControllerRuntime = Object.fromEntries(
    Object.keys(targets.controllerRuntime).map((id) => [
      id,
      ratioOfRatios(ratios, id, "controller-runtime", targets.controllerRuntime[id] ?? null),
    ]),
  );
  return {
    rate: load,
    // The machine's one-minute load average as each round started (8 helpers share 2 cores).
    loadAverages,
    rows,
    versusControllerRuntime,
    versusGoDecode: ratioOfRatios(ratios, "validate", "go-decode", null),
    versusWorkerFloor: ratioOfRatios(ratios, "validate", "worker-floor", targets.workerFloorRatio),
    // --variants: each variant's CPU per review over the floor with isolation's (below 1: the variant is cheaper).
    variantsVersusWorkerFloor: Object.fromEntries(
      variants.map((name) => [name, ratioOfRatios(ratios, name, "worker-floor", null)]),
    ),
    // --baseline: this build's CPU per review over the baseline build's (below 1: this one is cheaper).
    versusBaseline: Object.fromEntries(
      productScenarios.map((scenario) => [
        scenario.id,
        ratioOfRatios(ratios, scenario.id, `${scenario.id}@baseline`, null),
      ]),
    ),
  };
}

type AtRate = Awaited<ReturnType<typeof measureAtRate>>;

function rateName(load: Rate): string {
  return load === "saturation" ? "saturation" : `${load}/s`;
}

/**
 * A scenario's CPU per review against another server's, both measured beside their floors: per round
 * the ratio of their ratios to the floor, the median over rounds; null when either was not measured.
 */
function ratioOfRatios(ratios: Record<string, number[]>, id: string, otherId: string, target: number | null) {
  const mine = ratios[id] ?? [];
  const other = ratios[otherId] ?? [];
  if (mine.length === 0 || other.length !== mine.length) return null;
  const quotients = mine.map((ratio, i) => ratio / (other[i] as number));
  return { ratio: median(quotients), range: [Math.min(...quotients), Math.max(...quotients)], target };
}

function versusLine(what: string, versus: ReturnType<typeof ratioOfRatios>): string {
  if (versus === null) return `${what}: not measured`;
  const range = versus.range.map((v) => v.toFixed(2)).join("–");
  return `${what}: ${versus.ratio.toFixed(2)}× (${range}${versus.target === null ? "" : `; target ≤ ${versus.target}×`})`;
}

function rateReport(atRate: AtRate): string {
  return [
    `\n### ${rateName(atRate.rate)}\n`,
    cpuTable(atRate.rows),
    "",
    ...Object.entries(atRate.versusControllerRuntime).map(([id, versus]) =>
      versusLine(`${id} against the controller-runtime webhook`, versus),
    ),
    versusLine("validate against the Go decode webhook", atRate.versusGoDecode),
    versusLine("validate against the floor with isolation", atRate.versusWorkerFloor),
    ...Object.entries(atRate.variantsVersusWorkerFloor).map(([name, versus]) =>
      versusLine(`${name} against the floor with isolation`, versus),
    ),
    ...Object.entries(atRate.versusBaseline)
      .filter(([, versus]) => versus !== null)
      .map(([id, versus]) => versusLine(`${id}, this build against the baseline build`, versus)),
    "",
  ].join("\n");
}

type Row = {
  id: string;
  scenario: string;
  cpuMicrosPerReview: number;
  cpuMicrosRange: number[];
  capacityPerCore: number;
  ratioToFloor: number;
  ratioRange: number[];
};

async function latencyAndSoak(byRate: AtRate[]) {
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
  report(byRate, latencyRow, soakResult, offline);
}

function cpuTable(rows: Row[]): string {
  return [
    "| server | CPU per review µs (range) | reviews/s per core | × floor (range) |",
    "|---|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.cpuMicrosPerReview.toFixed(0)} (${row.cpuMicrosRange.map((v) => v.toFixed(0)).join("–")}) | ${row.capacityPerCore.toFixed(0)} | ${row.ratioToFloor.toFixed(2)} (${row.ratioRange.map((v) => v.toFixed(2)).join("–")}) |`,
    ),
  ].join("\n");
}

/** Whether a target was met: null where it was not measured (no Go on PATH, or not in this run). */
function verdict(values: (boolean | null)[]): boolean | null {
  if (values.length === 0 || values.includes(null)) return null;
  return values.every(Boolean);
}

function said(met: boolean | null): string {
  return met === null ? "NOT MEASURED" : met ? "met" : "MISSED";
}

function report(
  byRate: AtRate[],
  latency: { floorP99Ms: number; moduleAdmissionP99Ms: number; ratio: number },
  soakResult: Awaited<ReturnType<typeof soak>>,
  offline: ReturnType<typeof measureOffline>,
) {
  const at1000 = byRate.find((atRate) => atRate.rate === 1000);
  const saturation = byRate.find((atRate) => atRate.rate === "saturation");
  const row = (atRate: AtRate | undefined, id: string) => atRate?.rows.find((r) => r.id === id);
  const isolation = row(at1000, "worker-floor");
  const capacity = (id: string) => row(saturation, id)?.capacityPerCore;
  const met = {
    // Every module-admission scenario within its multiple of the controller-runtime webhook, at every rate.
    controllerRuntime: verdict(
      byRate.flatMap((atRate) =>
        Object.values(atRate.versusControllerRuntime).map((v) =>
          v === null ? null : v.ratio <= (v.target ?? 0),
        ),
      ),
    ),
    capacity: verdict([
      capacity("validate") === undefined || capacity("controller-runtime") === undefined
        ? null
        : (capacity("validate") as number) >= (capacity("controller-runtime") as number),
    ]),
    workerFloor: verdict([
      at1000?.versusWorkerFloor ? at1000.versusWorkerFloor.ratio <= targets.workerFloorRatio : null,
    ]),
    isolation: verdict([isolation ? isolation.ratioToFloor <= targets.isolationRatio : null]),
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
  const fmt = (n: number) => n.toFixed(1);
  process.stdout.write(
    `\np99 at ${rate} reviews/s (validate): floor ${fmt(latency.floorP99Ms)} ms, module-admission ${fmt(latency.moduleAdmissionP99Ms)} ms, ${latency.ratio.toFixed(2)}× (target ≤ ${targets.p99Ratio}×)\n` +
      `soak: ${soakResult.rate} reviews/s for ${soakResult.seconds} s, ${soakResult.requests} reviews, ${soakResult.failed} failed; heap after GC ${soakResult.heapAfterGcMiB.map(fmt).join(" → ")} MiB (${(soakResult.heapGrowth * 100).toFixed(1)}%), RSS ${soakResult.rssMiB.map(fmt).join(" → ")} MiB (${(soakResult.rssGrowth * 100).toFixed(1)}%)\n` +
      `validate on ${offline.manifests} manifests: ${offline.validateCpuSeconds} s of CPU against ${offline.parseOnlyCpuSeconds} s to parse them, ${offline.cpuRatioToParseOnly}× (target ≤ ${targets.offlineRatio}×; wall ${offline.wallRatioToParseOnly}×)\n` +
      `${versusKubeconform.measured ? `kubeconform ${versusKubeconform.version} on the same files and schemas: ${versusKubeconform.kubeconformCpuSeconds} s of CPU; validate ${versusKubeconform.cpuRatio}× (${versusKubeconform.cpuRatioRange.join("–")}; target ≤ ${targets.kubeconformRatio}×)` : `validate against kubeconform: NOT MEASURED (${versusKubeconform.why})`}\n` +
      `${rounds} rounds of ${seconds} s on ${connections} connections at ${rates.map(rateName).join(", ")}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} on ${cpus().length} CPUs\n` +
      `targets: against controller-runtime ${said(met.controllerRuntime)}, capacity ${said(met.capacity)}, validate against the floor with isolation ${said(met.workerFloor)}, isolation against the floor ${said(met.isolation)}, p99 ${said(met.p99)}, heap ${said(met.heap)}, RSS ${said(met.rss)}, no failures ${said(met.noFailures)}, offline ${said(met.offline)}, offline against kubeconform ${said(met.offlineKubeconform)}\n`,
  );
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    loadAverageAtEnd: loadavg(),
  };
  writeFileSync(
    flags.out,
    `${JSON.stringify({ date: new Date().toISOString(), smoke, machine, method: { rounds, secondsPerMeasurement: seconds, connections, rates }, targets, met, byRate, latency, soak: soakResult, offline }, null, 2)}\n`,
  );
}
