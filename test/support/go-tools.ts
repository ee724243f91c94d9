import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Go programs the tests run, built from the Go module proxy with the machine's Go: the real control plane
 * (kube-apiserver, etcd, kubectl), helm, and the oracles. Each is a small Go module of the project's
 * (go.mod and go.sum pin the versions, a `tools` file names the packages), built once into a cache
 * outside the clone, keyed by the module's files and the Go version, so a fresh clone on the same machine
 * (CI's) reuses it. `npm test` builds every tool before the test files start (test/support/build-go-tools.ts),
 * so parallel test files never race to build.
 */
export interface GoTool {
  /** The cache folder's prefix and the name in progress lines. */
  name: string;
  /** The Go module's folder, relative to test/. */
  module: string;
  /** Packages to build (main packages), each giving a binary named after its last path element. */
  packages: string[];
  /** Shown while building: how long a first build takes on the 2-core machine. */
  firstBuild: string;
  /**
   * `-X` link flags from the module's go.mod: the version a release build stamps in (a plain `go build`
   * says v0.0.0-master, which kubectl refuses to compare and `--emulated-version` cannot place).
   */
  versionStamps?: (goMod: string) => string[];
  /** The folder to build in, relative to test/, when it is a module nested in `module` (default: `module`). */
  buildIn?: string;
  /** Environment for the build: `GOTOOLCHAIN` for a tool that must be built with another Go. */
  env?: Record<string, string>;
}

/** The version go.mod requires of `module`. */
function required(goMod: string, module: string): string {
  const escaped = module.replace(/[./]/g, (c) => `\\${c}`);
  const version = new RegExp(`^(?:require )?\\s*${escaped} (v\\d+\\.\\d+\\.\\d+)\\s*$`, "m").exec(goMod)?.[1];
  if (!version) throw new Error(`go.mod requires no ${module}`);
  return version;
}

const testDir = fileURLToPath(new URL("..", import.meta.url));

export const controlPlaneTool: GoTool = {
  name: "control-plane",
  module: "control-plane",
  packages: [
    "k8s.io/kubernetes/cmd/kube-apiserver",
    "k8s.io/kubernetes/cmd/kubectl",
    "go.etcd.io/etcd/server/v3",
  ],
  firstBuild: "about 7 minutes on 2 cores, 600 MB of modules and 3 GB of build cache, once per version",
  versionStamps: (goMod) => {
    const version = required(goMod, "k8s.io/kubernetes");
    const [major, minor] = version.slice(1).split(".");
    // hack/lib/version.sh's stamps, in both packages that carry them.
    return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => [
      `-X ${pkg}.gitVersion=${version}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    ]);
  },
};

/**
 * The API server's own validation of CRDs and admission policies, without a server: all that
 * `npm run generate` needs, so it is a tool of its own (a fraction of the control plane's build, whose lock
 * generate would otherwise wait on), built from the control plane's module at the same Kubernetes version.
 */
export const apiServerCheckTool: GoTool = {
  name: "apiserver-check",
  module: "control-plane",
  packages: ["./apiserver-check"],
  firstBuild: "about 3 minutes on 2 cores (k8s.io/apiextensions-apiserver's validation), once per version",
};

export const helmTool: GoTool = {
  name: "helm",
  module: "helm-build",
  packages: ["helm.sh/helm/v4/cmd/helm"],
  firstBuild: "about 2 minutes on 2 cores, once per version",
  versionStamps: (goMod) => [
    `-X helm.sh/helm/v4/internal/version.version=${required(goMod, "helm.sh/helm/v4")}`,
  ],
};

/** The type check of ValidatingAdmissionPolicies that kube-controller-manager runs (test/policy-typecheck). */
export const policyTypecheckTool: GoTool = {
  name: "policy-typecheck",
  module: "policy-typecheck",
  packages: ["module-admission/test/policy-typecheck"],
  firstBuild: "about 3 minutes on 2 cores (k8s.io/apiserver's CEL and OpenAPI packages), once per version",
};

/**
 * What Go and the operators' Go libraries say, for the differential tests (test/support/go-oracle.ts):
 * the Forkspacer oracle with the operator's Go 1.24.9 (downloaded as a toolchain module), the
 * addon-operator oracle (a module nested in it) with the machine's Go, as addon-operator's go.mod asks.
 */
export const oracleTool: GoTool = {
  name: "oracle",
  module: "oracles",
  packages: ["module-admission/test/oracles"],
  firstBuild: "about 2 minutes on 2 cores (and a Go 1.24.9 toolchain download), once per version",
  env: { GOTOOLCHAIN: "go1.24.9" },
};

export const addonOracleTool: GoTool = {
  name: "oracle-addon-operator",
  module: "oracles",
  buildIn: "oracles/addon-operator",
  packages: ["module-admission/test/oracles/addon-operator"],
  firstBuild: "about 2 minutes on 2 cores, once per version",
};

/** What lifecycle-manager's semver library (Masterminds/semver, at its go.mod's version) says of versions. */
export const kymaOracleTool: GoTool = {
  name: "oracle-kyma",
  module: "kyma-oracle",
  packages: ["module-admission/test/kyma-oracle"],
  firstBuild: "a few seconds, once per version",
};

/** Every Go tool `npm test` builds before the tests start. */
export const goTools: GoTool[] = [
  apiServerCheckTool,
  controlPlaneTool,
  helmTool,
  policyTypecheckTool,
  oracleTool,
  addonOracleTool,
  kymaOracleTool,
];

/** Where built tools are kept: MODULE_ADMISSION_GO_CACHE, else the user's cache folder. */
export function goToolsCacheDir(): string {
  if (process.env.MODULE_ADMISSION_GO_CACHE) return process.env.MODULE_ADMISSION_GO_CACHE;
  const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cacheHome, "module-admission", "go-tools");
}

let goVersionMemo: string | null | undefined;

/** `go version`'s answer, or null where Go is not installed. */
export function goVersion(): string | null {
  if (goVersionMemo !== undefined) return goVersionMemo;
  try {
    goVersionMemo = execFileSync("go", ["version"], { encoding: "utf8" }).trim();
  } catch {
    goVersionMemo = null;
  }
  return goVersionMemo;
}

/** node:test's `skip` for a test that needs a Go tool: false when Go is there, else one line. */
export const withoutGo: string | false =
  goVersion() === null
    ? "go not found on PATH: the tests that run Go-built tools (control plane, helm, oracles) are skipped"
    : false;

function moduleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return moduleFiles(path);
      return /\.go$|^go\.(mod|sum)$/.test(entry.name) ? [path] : [];
    })
    .sort();
}

function linkFlags(tool: GoTool): string {
  const goMod = readFileSync(join(testDir, tool.module, "go.mod"), "utf8");
  return (tool.versionStamps?.(goMod) ?? []).join(" ");
}

/** The tool's cache folder: its name and a digest of its module's files, its link flags and the Go version. */
export function toolDir(tool: GoTool): string {
  const hash = createHash("sha256")
    .update(goVersion() ?? "no-go")
    .update("\0")
    .update(linkFlags(tool));
  for (const file of moduleFiles(join(testDir, tool.module))) {
    hash.update(file.slice(testDir.length)).update("\0").update(readFileSync(file)).update("\0");
  }
  return join(goToolsCacheDir(), `${tool.name}-${hash.digest("hex").slice(0, 16)}`);
}

/** A built binary's path (the tool must have been built: `ensureBuilt`, or `npm test`'s build step). */
export function goBinary(tool: GoTool, binary: string): string {
  const path = join(toolDir(tool), binary);
  if (!existsSync(path)) {
    throw new Error(
      `${binary} is not built (${path}); run \`node --import tsx test/support/build-go-tools.ts\` (npm test does)`,
    );
  }
  return path;
}

const binaryName = (pkg: string): string => {
  // A module's root package named by a major-version suffix builds a binary named after the element before it.
  const [last = pkg, before = pkg] = pkg.split("/").reverse();
  return /^v\d+$/.test(last) ? before : last;
};

/**
 * Builds the tool unless its cache folder is complete. Another process building the same tool holds the
 * lock (a folder); this one waits for it, saying so. Progress goes to `log`, one line per 30 s, with the packages
 * compiled so far, so a first run on a new machine says what it is doing.
 */
export async function ensureBuilt(tool: GoTool, log: (line: string) => void): Promise<string> {
  const dir = toolDir(tool);
  const complete = join(dir, ".complete");
  if (existsSync(complete)) return dir;
  mkdirSync(goToolsCacheDir(), { recursive: true });
  const lock = `${dir}.lock`;
  // Said at once and every 30 s: which tool, for how long, and the lock, so a wait is never silent.
  for (let polls = 0; !tryLock(lock); polls += 1) {
    if (existsSync(complete)) return dir;
    if (polls % 6 === 0)
      log(
        `${tool.name}: waiting for another process building ${tool.packages.join(", ")} (${polls * 5} s so far; its lock: ${lock})`,
      );
    await new Promise((done) => setTimeout(done, 5000));
  }
  try {
    if (existsSync(complete)) return dir;
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    log(`${tool.name}: building ${tool.packages.join(", ")} (${tool.firstBuild}) into ${dir}`);
    await goBuild(tool, partial, log);
    for (const pkg of tool.packages) {
      if (!existsSync(join(partial, binaryName(pkg))))
        throw new Error(`${tool.name}: ${pkg} built no binary`);
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    // The marker last: a folder without it is a build that did not finish.
    execFileSync("touch", [complete]);
    log(`${tool.name}: built`);
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    // A lock left by a build that was killed (older than an hour) is taken over.
    const age = Date.now() - statSync(lock).mtimeMs;
    if (age > 3_600_000) {
      rmSync(lock, { recursive: true, force: true });
      return tryLock(lock);
    }
    return false;
  }
}

function goBuild(tool: GoTool, out: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const flags = linkFlags(tool);
    const ldflags = flags === "" ? [] : [`-ldflags=${flags}`];
    const child = spawn("go", ["build", "-v", ...ldflags, "-o", `${out}/`, ...tool.packages], {
      cwd: join(testDir, tool.buildIn ?? tool.module),
      env: { ...process.env, GOFLAGS: "-mod=readonly -buildvcs=false", ...tool.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let compiled = 0;
    let errors = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      for (const line of chunk.split("\n")) {
        if (line === "") continue;
        // `go build -v` names each package as it compiles it; anything else is a download or an error.
        if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) compiled += 1;
        else errors = `${errors}${line}\n`.slice(-20_000);
      }
    });
    const progress = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      log(`${tool.name}: still building, ${seconds} s, ${compiled} packages compiled`);
    }, 30_000);
    child.on("error", (error) => {
      clearInterval(progress);
      reject(error);
    });
    child.on("close", (code) => {
      clearInterval(progress);
      if (code === 0) resolve();
      else reject(new Error(`${tool.name}: go build exited ${code}:\n${errors}`));
    });
  });
}
