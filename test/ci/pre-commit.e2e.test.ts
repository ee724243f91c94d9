import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * The hook of .pre-commit-hooks.yaml as users get it: the real pre-commit installs it from a git URL of
 * this repository (a bare clone of this commit, by file://) into a fresh PRE_COMMIT_HOME, then a commit
 * with a denied Module fails and passes once the Module is fixed. Debian's pre-commit (3.x: packs the
 * clone) and the newest from PyPI (4.x: installs from git), which .ci/run installs when missing; where
 * neither is found the test is skipped with one line, except under .ci/run, which requires them.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
/** The newest pre-commit, as .ci/run pins it (its one place). */
const newestVersion =
  /^pre_commit_version=(\S+)$/m.exec(readFileSync(join(root, ".ci", "run"), "utf8"))?.[1] ?? "";
const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");

function preCommits(): string[] {
  const given = process.env.MODULE_ADMISSION_PRE_COMMITS;
  const candidates = given
    ? given.split(delimiter)
    : [
        "/usr/bin/pre-commit",
        join(cache, "module-admission", `pre-commit-${newestVersion}`, "bin", "pre-commit"),
      ];
  return candidates.filter((path) => path !== "" && existsSync(path));
}

const found = preCommits();
const required = process.env.MODULE_ADMISSION_REQUIRE_TOOLS === "1";
const skip =
  found.length > 0 || required
    ? false
    : "pre-commit not found (Debian's /usr/bin/pre-commit, or PyPI's in the cache; .ci/run installs both): skipped";

function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env, npm_config_prefer_offline: "true", npm_config_update_notifier: "false" },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** How many installs of the package under a PRE_COMMIT_HOME hold a bundled CLI (dist/cli/main.js). */
function installedBundles(home: string): number {
  const found = sh("find", [home, "-path", "*/module-admission/dist/cli/main.js"], home).output;
  return found.split("\n").filter((line) => line !== "").length;
}

const identity = ["-c", "user.email=dev@example.com", "-c", "user.name=dev"];

describe("pre-commit installs the hook from a git URL of this repository", { skip }, () => {
  it("finds Debian's pre-commit 3.x and the newest (a requirement under .ci/run)", () => {
    const versions = found.map((path) => sh(path, ["--version"], root).output.trim());
    assert.ok(
      versions.some((v) => /^pre-commit 3\./.test(v)),
      versions.join(", "),
    );
    assert.ok(versions.includes(`pre-commit ${newestVersion}`), versions.join(", "));
  });

  const head = sh("git", ["rev-parse", "HEAD"], root).output.trim();
  for (const preCommit of found) {
    const version = sh(preCommit, ["--version"], root).output.trim();
    it(`${version}: a chart's template passes (said with -v), a denied Module fails with its rule id, and passes once it is fixed`, () => {
      const work = mkdtempSync(join(tmpdir(), "pre-commit-hook-"));
      const remote = join(work, "module-admission.git");
      assert.equal(sh("git", ["clone", "--quiet", "--bare", root, remote], work).status, 0);
      const user = join(work, "user");
      assert.equal(sh("git", ["init", "--quiet", user], work).status, 0);
      writeFileSync(
        join(user, ".pre-commit-config.yaml"),
        `repos:\n  - repo: file://${remote}\n    rev: ${head}\n    hooks:\n      - id: module-admission-validate\n`,
      );
      const env = { PRE_COMMIT_HOME: join(work, "pre-commit-home") };
      const install = sh(preCommit, ["install"], user, env);
      assert.equal(install.status, 0, install.output);
      // A Helm chart beside the Modules: its templates are Go templates, not YAML.
      const template = join("charts", "web", "templates", "deployment.yaml");
      mkdirSync(join(user, "charts", "web", "templates"), { recursive: true });
      writeFileSync(join(user, "charts", "web", "Chart.yaml"), "apiVersion: v2\nname: web\nversion: 0.1.0\n");
      writeFileSync(
        join(user, template),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n  labels: {a: b}\n{{- end }}\n",
      );
      sh("git", ["add", "."], user);
      const chart = sh("git", [...identity, "commit", "-m", "a chart"], user, env);
      assert.equal(chart.status, 0, chart.output);
      assert.match(chart.output, /module-admission validate\.+Passed/);
      // The hook's first run bundled the CLI in pre-commit's install: every run after it runs the bundle.
      assert.equal(installedBundles(join(work, "pre-commit-home")), 1);
      const verbose = sh(preCommit, ["run", "-v", "--files", template], user, env);
      assert.equal(verbose.status, 0, verbose.output);
      assert.match(
        verbose.output,
        /^not read: charts\/web\/templates\/deployment\.yaml \(a Helm chart's template/m,
      );
      const module = readFileSync(join(root, "examples", "modules", "redis.yaml"), "utf8");
      writeFileSync(join(user, "redis.yaml"), module);
      const badRelease = module
        .split(/^---$/m)[0]
        ?.replace("releaseName: redis-cache", "releaseName: Redis_Cache");
      writeFileSync(join(user, "release.yaml"), badRelease ?? "");
      sh("git", ["add", "."], user);
      const denied = sh("git", [...identity, "commit", "-m", "a denied Module"], user, env);
      assert.notEqual(denied.status, 0, denied.output);
      assert.match(denied.output, /module-admission validate\.+Failed/);
      assert.match(
        denied.output,
        /redis\.yaml:48: Module default\/redis: spec\.config\.replicas: Invalid value: 7/,
      );
      assert.match(
        denied.output,
        /release\.yaml:\d+: Module default\/redis-cache: spec\.helm\.releaseName: Invalid value: "Redis_Cache": .*\(rule module\.release-name\)$/m,
      );
      writeFileSync(join(user, "redis.yaml"), module.replace("replicas: 7", "replicas: 3"));
      writeFileSync(join(user, "release.yaml"), module.split(/^---$/m)[0] ?? "");
      sh("git", ["add", "."], user);
      const fixed = sh("git", [...identity, "commit", "-m", "fixed"], user, env);
      assert.equal(fixed.status, 0, fixed.output);
      assert.match(fixed.output, /module-admission validate\.+Passed/);
    });
  }
});
