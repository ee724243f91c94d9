import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dump } from "js-yaml";
import { customModule, helmModule } from "../test/support/modules.js";
import { median } from "./process-stats.js";

/** Issue 34's offline target: `validate` at most this many times its parse-only baseline. */
export const offlineTarget = 1.5;

const perFile = 100;

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

function writeManifests(total: number): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-validate-"));
  mkdirSync(join(dir, "modules"));
  for (let file = 0; file * perFile < total; file++) {
    const docs = Array.from({ length: Math.min(perFile, total - file * perFile) }, (_, i) =>
      manifest(file * perFile + i),
    );
    writeFileSync(join(dir, "modules", `batch-${file}.yaml`), docs.map((doc) => dump(doc)).join("---\n"));
  }
  return dir;
}

interface ChildRun {
  wallSeconds: number;
  cpuSeconds: number;
  status: number | null;
  stdout: string;
}

/** A compiled script in its own process; its CPU time (user + system) as the preloaded probe reports it. */
function runChild(built: string, args: string[]): ChildRun {
  const cpuFile = join(mkdtempSync(join(tmpdir(), "bench-cpu-")), "cpu.json");
  const probe = pathToFileURL(join(built, "bench/offline/cpu-probe.js")).href;
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ["--import", probe, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, BENCH_CPU_FILE: cpuFile },
  });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (run.status === 2 || run.status === null) throw new Error(`${args.join(" ")} failed:\n${run.stderr}`);
  const cpu = JSON.parse(readFileSync(cpuFile, "utf8")) as { user: number; system: number };
  rmSync(cpuFile, { force: true });
  return { wallSeconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, status: run.status, stdout: run.stdout };
}

/**
 * `module-admission validate` on `total` manifests (100 files of 100 documents), run as users run it
 * (`node dist/cli/main.js validate`, a child process), against a baseline that reads and parses the
 * same files with the same YAML reader in a process of its own (startup included in both). CPU time
 * is the figure, since the machine's load sways wall time; the two alternate, `rounds` times, and the
 * median of the pair ratios is the result. `root` is the project; `built` where bench/tsconfig.json
 * compiled the baseline and the probe.
 */
export function measureOffline(options: { root: string; built: string; total: number; rounds: number }) {
  const dir = writeManifests(options.total);
  const modules = join(dir, "modules");
  const main = join(options.root, "dist/cli/main.js");
  const parseOnly = join(options.built, "bench/offline/parse-only.js");
  const pairs: { parseOnly: ChildRun; validate: ChildRun }[] = [];
  let findings = 0;
  try {
    for (let round = 0; round < options.rounds; round++) {
      const baseline = runChild(options.built, [parseOnly, modules]);
      if (Number(baseline.stdout) !== options.total)
        throw new Error(`the baseline parsed ${baseline.stdout} manifests, expected ${options.total}`);
      const validate = runChild(options.built, [main, "validate", "-f", modules, "-o", "json"]);
      findings = (JSON.parse(validate.stdout) as { findings: unknown[] }).findings.length;
      pairs.push({ parseOnly: baseline, validate });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpuRatios = pairs.map((pair) => pair.validate.cpuSeconds / pair.parseOnly.cpuSeconds);
  const wallRatios = pairs.map((pair) => pair.validate.wallSeconds / pair.parseOnly.wallSeconds);
  const round2 = (n: number) => Number(n.toFixed(2));
  return {
    manifests: options.total,
    rounds: options.rounds,
    exitStatus: pairs[0]?.validate.status ?? null,
    findings,
    validateCpuSeconds: round2(median(pairs.map((pair) => pair.validate.cpuSeconds))),
    parseOnlyCpuSeconds: round2(median(pairs.map((pair) => pair.parseOnly.cpuSeconds))),
    cpuRatioToParseOnly: round2(median(cpuRatios)),
    cpuRatioRange: [round2(Math.min(...cpuRatios)), round2(Math.max(...cpuRatios))],
    validateWallSeconds: round2(median(pairs.map((pair) => pair.validate.wallSeconds))),
    parseOnlyWallSeconds: round2(median(pairs.map((pair) => pair.parseOnly.wallSeconds))),
    wallRatioToParseOnly: round2(median(wallRatios)),
    target: offlineTarget,
  };
}
