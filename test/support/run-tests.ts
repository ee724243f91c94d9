import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { pipeline } from "node:stream/promises";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { fileURLToPath } from "node:url";

/**
 * `npm test`'s test files: every `*.test.ts` under test/, each in a process of its own, several at a time.
 * node's runner defaults to one file fewer than the cores (one at a time on CI's 2 cores), while most
 * end-to-end files spend their time waiting on a server, a control plane or a child process: one core
 * stood idle. Files are independent (test/parallel-safety.test.ts: no fixed port, no fixed temporary
 * path, dist/ only rebundled atomically; Go tools and Chromium are unpacked or built under a lock).
 *
 * The longest files start first, so none starts last and runs alone: files that start a control plane
 * (kube-apiserver and etcd: the slowest to start and the largest workloads), then the other end-to-end
 * files, then the unit files, which fill the end; a file marked `runsAlone` last, by itself. MODULE_ADMISSION_TEST_CONCURRENCY sets how many run at
 * once (default: the cores plus one, 3 on 2 cores); arguments narrow the files (parts of their paths).
 */
const testDir = fileURLToPath(new URL("..", import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * A file that loads every core on purpose (the benchmark's smoke run measures at saturation) says so with
 * this line; it runs after the others, alone, so it neither slows nor is slowed by files beside it.
 */
const runsAlone = "npm test: runs alone (it loads every core)";

/** 0 starts first: control-plane files, then other end-to-end files, then unit files; 3: alone, last. */
function startOrder(file: string): number {
  const text = readFileSync(file, "utf8");
  if (text.includes(runsAlone)) return 3;
  if (!file.endsWith(".e2e.test.ts")) return 2;
  return /useControlPlane|startControlPlane/.test(text) ? 0 : 1;
}

const only = process.argv.slice(2);
const ordered = testFiles(testDir)
  .filter((file) => only.length === 0 || only.some((part) => relative(testDir, file).includes(part)))
  .map((file) => ({ file, order: startOrder(file) }))
  .sort((a, b) => a.order - b.order || a.file.localeCompare(b.file));
if (ordered.length === 0) {
  console.error(`no test files under ${testDir}${only.length > 0 ? ` matching ${only.join(", ")}` : ""}`);
  process.exit(2);
}
const concurrency = Number(process.env.MODULE_ADMISSION_TEST_CONCURRENCY ?? availableParallelism() + 1);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`MODULE_ADMISSION_TEST_CONCURRENCY must be a whole number from 1: ${concurrency}`);
  process.exit(2);
}
const phases = [
  { files: ordered.filter(({ order }) => order < 3).map(({ file }) => file), concurrency },
  { files: ordered.filter(({ order }) => order === 3).map(({ file }) => file), concurrency: 1 },
];
for (const phase of phases) {
  if (phase.files.length === 0) continue;
  // node:test's run(), not `node --test FILES`: the command line sorts the files by name. Each file's
  // process gets this one's --import tsx.
  const tests = run(phase);
  tests.on("test:fail", () => {
    process.exitCode = 1;
  });
  await pipeline(tests.compose(new spec()), process.stdout, { end: false });
}
