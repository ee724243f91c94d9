/**
 * `npm run bench:validate`: how long `module-admission validate` takes on 10,000 manifests, run as a
 * user runs it (a child process on a directory), against a baseline measured in the same run: reading
 * and parsing the same files with the same YAML parser, without validating. The target is < 10 s. The
 * machine is shared, so the same validation is also measured in-process as CPU time.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import { manifestFiles, parseManifests } from "../src/cli/manifests.js";
import { runValidate } from "../src/cli/validate.js";
import { customModule, helmModule } from "../test/support/modules.js";

const total = Number(process.env.MANIFESTS ?? 10_000);
const perFile = 100;
const targetSeconds = 10;

/** Mostly valid Modules, one in ten with two errors and an unknown field: a realistic GitOps repo. */
function manifest(index: number): unknown {
  const module = index % 2 === 0 ? helmModule() : customModule();
  module.metadata = { name: `module-${index}`, namespace: `team-${index % 50}` };
  if (index % 10 === 8 && module.spec.helm) {
    module.spec.helm.releaseName = `Bad_${index}`;
    module.spec.config = { ...module.spec.config, replicas: 7, repliacs: 1 };
  }
  return module;
}

const dir = mkdtempSync(join(tmpdir(), "bench-validate-"));
mkdirSync(join(dir, "modules"));
for (let file = 0; file * perFile < total; file++) {
  const docs = Array.from({ length: Math.min(perFile, total - file * perFile) }, (_, i) =>
    manifest(file * perFile + i),
  );
  writeFileSync(join(dir, "modules", `batch-${file}.yaml`), docs.map((doc) => dump(doc)).join("---\n"));
}

function seconds(work: () => void): number {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const baselineCpuBefore = process.cpuUsage();
const baseline = seconds(() => {
  const count = manifestFiles([join(dir, "modules")]).flatMap((file) =>
    parseManifests(file, readFileSync(file, "utf8")),
  ).length;
  if (count !== total) throw new Error(`parsed ${count} manifests, expected ${total}`);
});
const baselineCpu = process.cpuUsage(baselineCpuBefore);
const baselineCpuSeconds = (baselineCpu.user + baselineCpu.system) / 1e6;

// The command as users run it: compiled (`npm run build`), not transpiled on the fly by tsx.
const root = fileURLToPath(new URL("..", import.meta.url));
const build = spawnSync(
  process.execPath,
  [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.json")],
  {
    encoding: "utf8",
  },
);
if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
const main = join(root, "dist/cli/main.js");
let status: number | null = null;
let findings = 0;
const validate = seconds(() => {
  const run = spawnSync(process.execPath, [main, "validate", "-f", join(dir, "modules"), "-o", "json"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  status = run.status;
  if (run.status === 2) throw new Error(run.stderr);
  findings = (JSON.parse(run.stdout) as { findings: unknown[] }).findings.length;
});

// The same run in this process, on CPU time: what the work costs when the machine is not shared.
const cpuBefore = process.cpuUsage();
const inProcessStatus = await runValidate(["-f", join(dir, "modules"), "-o", "json"], {
  readStdin: () => "",
  stdout: () => {},
  stderr: (text) => process.stderr.write(text),
  interactive: false,
});
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
rmSync(dir, { recursive: true, force: true });

const result = {
  manifests: total,
  exitStatus: status,
  findings,
  validateSeconds: Number(validate.toFixed(2)),
  parseOnlySeconds: Number(baseline.toFixed(2)),
  ratioToParseOnly: Number((validate / baseline).toFixed(1)),
  msPerManifest: Number(((validate * 1000) / total).toFixed(3)),
  inProcessCpuSeconds: Number(cpuSeconds.toFixed(2)),
  // The same two measured as CPU time in this process: no process start, and not swayed by the load.
  parseOnlyCpuSeconds: Number(baselineCpuSeconds.toFixed(2)),
  inProcessCpuRatioToParseOnly: Number((cpuSeconds / baselineCpuSeconds).toFixed(2)),
  inProcessStatus,
  target: `< ${targetSeconds} s`,
  meetsTarget: validate < targetSeconds,
  // The machine is shared: a load above the core count slows both measurements alike.
  cores: cpus().length,
  loadAverage: loadavg().map((load) => Number(load.toFixed(1))),
};
console.log(JSON.stringify(result, null, 2));
