import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dump } from "js-yaml";
import { customModule, helmModule } from "../test/support/modules.js";
import { median } from "./process-stats.js";

/** Issue 42's offline targets: `validate` at most 1.5 times its parse-only baseline's CPU, and at most kubeconform's. */
export const offlineTarget = 1.5;
export const kubeconformTarget = 1.0;

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
 * A Go program in its own process, its CPU time (user + system, every thread) as bash's `times` reports
 * for the children it waited for: the same figure the probe gives for a Node process. The program's
 * own output goes to stderr (returned as `stdout`), leaving bash's stdout to `times`.
 */
function runGoChild(binary: string, args: string[]): ChildRun {
  const start = process.hrtime.bigint();
  const run = spawnSync("bash", ["-c", '"$@" >&2; status=$?; times; exit $status', "bash", binary, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  // `times` prints the shell's user and system time, then its children's: "0m1.130s 0m0.050s".
  const children = run.stdout.trim().split("\n").at(-1) ?? "";
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (run.status === null || run.status > 1 || seconds.length !== 2)
    throw new Error(`${binary} ${args.join(" ")} failed (${run.status}):\n${run.stderr}${run.stdout}`);
  return {
    wallSeconds,
    cpuSeconds: (seconds[0] as number) + (seconds[1] as number),
    status: run.status,
    stdout: run.stderr,
  };
}

/**
 * The project's editor JSON Schemas (schemas/dist/<kind>.schema.json, one per kind; the union of them
 * all is left out) where kubeconform's `-schema-location` template finds them:
 * DIR/<group>/<kind in lower case>_<version>.json, the layout of the CRD schema catalogues.
 */
function writeKubeconformSchemas(root: string, dir: string): string {
  const dist = join(root, "schemas/dist");
  for (const name of readdirSync(dist).filter((file) => file.endsWith(".schema.json"))) {
    const text = readFileSync(join(dist, name), "utf8");
    const properties = (JSON.parse(text) as { properties?: Record<string, { const?: unknown }> }).properties;
    const apiVersion = properties?.apiVersion?.const;
    const kind = properties?.kind?.const;
    if (typeof apiVersion !== "string" || typeof kind !== "string") continue;
    const [group, version] = apiVersion.split("/");
    mkdirSync(join(dir, group as string), { recursive: true });
    writeFileSync(join(dir, group as string, `${kind.toLowerCase()}_${version}.json`), text);
  }
  return `${dir}/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json`;
}

/** kubeconform's binary, or why it is not measured (no Go on PATH). */
export type KubeconformBinary = { binary: string } | { skipped: string };

/**
 * `module-admission validate` on `total` manifests (100 files of 100 documents), run as users run it
 * (`node dist/cli/main.js validate`, a child process), against a baseline that reads and parses the
 * same files with the same YAML reader in a process of its own (startup included in both), and
 * against kubeconform on the same files with the same schemas (the project's JSON Schemas, `-strict`).
 * CPU time (every thread) is the figure, since the machine's load sways wall time; the processes
 * alternate, `rounds` times, and the median of the per-round ratios is the result. `root` is the
 * project; `built` where bench/tsconfig.json compiled the baseline and the probe.
 */
export function measureOffline(options: {
  root: string;
  built: string;
  total: number;
  rounds: number;
  kubeconform: KubeconformBinary;
}) {
  const dir = writeManifests(options.total);
  const modules = join(dir, "modules");
  const main = join(options.root, "dist/cli/main.js");
  const parseOnly = join(options.built, "bench/offline/parse-only.js");
  const kubeconform = "binary" in options.kubeconform ? options.kubeconform.binary : null;
  const schemaLocation = kubeconform ? writeKubeconformSchemas(options.root, join(dir, "schemas")) : "";
  const rounds: {
    parseOnly: ChildRun;
    plainReader: ChildRun;
    validate: ChildRun;
    kubeconform: ChildRun | null;
  }[] = [];
  let findings = 0;
  let kubeconformSummary = "";
  try {
    for (let round = 0; round < options.rounds; round++) {
      const baseline = runChild(options.built, [parseOnly, modules]);
      if (Number(baseline.stdout) !== options.total)
        throw new Error(`the baseline parsed ${baseline.stdout} manifests, expected ${options.total}`);
      // The same, reading as validate reads (its plain block reader first): what reading costs it.
      const plainReader = runChild(options.built, [parseOnly, modules, "--plain-reader"]);
      if (Number(plainReader.stdout) !== options.total)
        throw new Error(`the plain reader parsed ${plainReader.stdout} manifests, expected ${options.total}`);
      const validate = runChild(options.built, [main, "validate", "-f", modules, "-o", "json"]);
      findings = (JSON.parse(validate.stdout) as { findings: unknown[] }).findings.length;
      const go = kubeconform
        ? runGoChild(kubeconform, ["-strict", "-summary", "-schema-location", schemaLocation, modules])
        : null;
      if (go) {
        kubeconformSummary = go.stdout.trim().split("\n").at(-1) ?? "";
        // Every manifest found and none skipped for a missing schema: it checked what validate checked.
        if (
          !kubeconformSummary.includes(`${options.total} resources found`) ||
          !/Skipped: 0\b/.test(kubeconformSummary)
        )
          throw new Error(`kubeconform did not check the ${options.total} manifests: ${kubeconformSummary}`);
      }
      rounds.push({ parseOnly: baseline, plainReader, validate, kubeconform: go });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpuRatios = rounds.map((round) => round.validate.cpuSeconds / round.parseOnly.cpuSeconds);
  const wallRatios = rounds.map((round) => round.validate.wallSeconds / round.parseOnly.wallSeconds);
  const round2 = (n: number) => Number(n.toFixed(2));
  const measuredGo = rounds.flatMap((round) =>
    round.kubeconform ? [{ ...round, go: round.kubeconform }] : [],
  );
  const goRatios = measuredGo.map((round) => round.validate.cpuSeconds / round.go.cpuSeconds);
  const versusKubeconform =
    measuredGo.length === 0
      ? {
          measured: false as const,
          why: "skipped" in options.kubeconform ? options.kubeconform.skipped : "no round ran kubeconform",
          target: kubeconformTarget,
        }
      : {
          measured: true as const,
          version: kubeconformVersion(options.root),
          flags: "-strict -summary",
          summary: kubeconformSummary,
          kubeconformCpuSeconds: round2(median(measuredGo.map((round) => round.go.cpuSeconds))),
          kubeconformWallSeconds: round2(median(measuredGo.map((round) => round.go.wallSeconds))),
          cpuRatio: round2(median(goRatios)),
          cpuRatioRange: [round2(Math.min(...goRatios)), round2(Math.max(...goRatios))],
          target: kubeconformTarget,
        };
  return {
    manifests: options.total,
    rounds: options.rounds,
    exitStatus: rounds[0]?.validate.status ?? null,
    findings,
    validateCpuSeconds: round2(median(rounds.map((round) => round.validate.cpuSeconds))),
    parseOnlyCpuSeconds: round2(median(rounds.map((round) => round.parseOnly.cpuSeconds))),
    cpuRatioToParseOnly: round2(median(cpuRatios)),
    cpuRatioRange: [round2(Math.min(...cpuRatios)), round2(Math.max(...cpuRatios))],
    /** Parsing as validate reads (its plain block YAML reader, js-yaml for the rest), and validate's ratio to it. */
    plainReaderCpuSeconds: round2(median(rounds.map((round) => round.plainReader.cpuSeconds))),
    cpuRatioToPlainReader: round2(
      median(rounds.map((round) => round.validate.cpuSeconds / round.plainReader.cpuSeconds)),
    ),
    validateWallSeconds: round2(median(rounds.map((round) => round.validate.wallSeconds))),
    parseOnlyWallSeconds: round2(median(rounds.map((round) => round.parseOnly.wallSeconds))),
    wallRatioToParseOnly: round2(median(wallRatios)),
    target: offlineTarget,
    versusKubeconform,
  };
}

/** The kubeconform version bench/kubeconform/go.mod pins. */
function kubeconformVersion(root: string): string {
  const goMod = readFileSync(join(root, "bench/kubeconform/go.mod"), "utf8");
  return /^require github\.com\/yannh\/kubeconform (v\d+\.\d+\.\d+)\b/m.exec(goMod)?.[1] ?? "unknown";
}
