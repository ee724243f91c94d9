import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { load, loadAll } from "js-yaml";
import { kubectlBinary } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { buildCommand } from "../support/serve-process.js";

/**
 * The commands in action.yml, .pre-commit-hooks.yaml and the Argo CD and Flux examples, taken from
 * those files and run here as their runners would run them: bash for the action's steps, pre-commit's
 * entry + file names, the plugin's generate command, the workflow's render step (real kubectl
 * kustomize). `module-admission` on PATH is the built CLI, as `npm install -g` of the package gives it.
 */
const root = new URL("../../", import.meta.url).pathname;
const redis = "examples/modules/redis.yaml";
const customApp = "examples/modules/custom-app.yaml";
let bin: string;

type Anything = any;
const yamlFile = (path: string) => load(readFileSync(join(root, path), "utf8")) as Anything;

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? root,
    encoding: "utf8",
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: tmpdir(), ...options.env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

before(() => {
  const main = buildCommand();
  bin = mkdtempSync(join(tmpdir(), "module-admission-bin-"));
  const shim = join(bin, "module-admission");
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${main}" "$@"\n`);
  chmodSync(shim, 0o755);
  // kubectl is built from Go modules (npm test's build step); without Go the GitOps examples are skipped.
  if (!withoutGo) symlinkSync(kubectlBinary(), join(bin, "kubectl"));
});

describe("action.yml (composite)", () => {
  const action = yamlFile("action.yml");
  const step = (id: string) =>
    action.runs.steps.find((s: { id?: string; name?: string }) => s.id === id || s.name === id);
  const require = createRequire(import.meta.url);
  const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats.default(ajv as never);
  const checkSarif = ajv.compile(
    JSON.parse(
      readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"),
    ),
  );

  /** The Validate step's script with the action's inputs, as the runner runs it (bash -e). */
  function validateStep(paths: string, cwd = root) {
    const dir = mkdtempSync(join(tmpdir(), "action-"));
    const output = join(dir, "github-output");
    writeFileSync(output, "");
    const sarifFile = join(dir, "module-admission.sarif");
    const result = run("bash", ["-e", "-c", step("validate").run], {
      cwd,
      env: { INPUT_PATHS: paths, SARIF_FILE: sarifFile, GITHUB_ACTION_PATH: root, GITHUB_OUTPUT: output },
    });
    assert.equal(result.code, 0, `the step itself succeeds; the exit code is an output: ${result.stderr}`);
    const exitCode = /^exit-code=(\d+)$/m.exec(readFileSync(output, "utf8"))?.[1];
    return { ...result, exitCode, sarifFile };
  }
  const failStep = (exitCode: string) =>
    run("bash", ["-e", "-c", step("Fail on denial").run], { env: { EXIT_CODE: exitCode } });

  test("a denial: exit-code 1, SARIF valid against the 2.1.0 schema with the finding, the job fails", () => {
    const result = validateStep(`examples/modules\n`);
    assert.equal(result.exitCode, "1");
    const text = readFileSync(result.sarifFile, "utf8");
    assert.ok(checkSarif(JSON.parse(text)), JSON.stringify(checkSarif.errors));
    const sarif: Anything = JSON.parse(text);
    const [denied] = sarif.runs[0].results.filter((r: { level: string }) => r.level === "error");
    assert.equal(denied.locations[0].physicalLocation.artifactLocation.uri, redis);
    assert.match(result.stdout, /redis\.yaml:48: Module default\/redis: spec\.config\.replicas/);
    const failed = failStep(result.exitCode ?? "");
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /::error::module-admission: the cluster would deny objects/);
  });

  test('the default paths "." on a repository with a chart, a workflow, node_modules and .git beside a Module: only the Module is read', () => {
    const repo = mkdtempSync(join(tmpdir(), "action-repo-"));
    const files: Record<string, string> = {
      "deploy/custom-app.yaml": readFileSync(join(root, customApp), "utf8"),
      "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
      "charts/web/values.yaml": "replicas: 2\n",
      "charts/web/templates/deployment.yaml":
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n",
      ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: []\n",
      "node_modules/left-pad/package.json": '{"name": "left-pad"}\n',
      "node_modules/left-pad/broken.yaml": "a: [\n",
      ".git/hooks/broken.yaml": "a: [\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(repo, path, ".."), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    const result = validateStep(action.inputs.paths.default, repo);
    assert.equal(result.exitCode, "0", result.stdout);
    assert.doesNotMatch(result.stdout, /undefined/);
    assert.match(result.stdout, /1 checked \(0 denied, 0 warned\)/);
    assert.match(result.stdout, /^not read: charts\/web\/templates\/ \(a Helm chart's templates/m);
    assert.match(result.stdout, /^not read: node_modules\/ \(npm dependencies\)$/m);
    assert.match(result.stdout, /^not read: \.git\/ \(git's own files\)$/m);
    assert.equal(failStep(result.exitCode ?? "").code, 0);
  });

  test("installs only the production dependencies and runs the command without a build, on Node 24", () => {
    const install = step("Install module-admission").run as string;
    assert.match(install, /^npm ci --omit=dev /);
    assert.doesNotMatch(install, /build/);
    assert.equal(
      action.runs.steps.find((s: { uses?: string }) => s.uses?.startsWith("actions/setup-node"))?.with[
        "node-version"
      ],
      24,
    );
  });

  test("the Build step bundles the CLI into the action's checkout, which both runs of the Validate step then run", () => {
    // The action's checkout as `npm ci --omit=dev` leaves it: the package's files and its dependencies.
    const checkout = mkdtempSync(join(tmpdir(), "action-checkout-"));
    for (const path of ["bin", "src", "schemas", "package.json"])
      cpSync(join(root, path), join(checkout, path), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(checkout, "node_modules"));
    const build = run("bash", ["-e", "-c", step("Build module-admission").run], {
      env: { GITHUB_ACTION_PATH: checkout },
    });
    assert.equal(build.code, 0, build.stderr);
    assert.ok(existsSync(join(checkout, "dist", "cli", "main.js")), "dist/cli/main.js written");
    const validate = run("bash", ["-e", "-c", step("validate").run], {
      cwd: root,
      env: {
        INPUT_PATHS: "examples/modules\n",
        SARIF_FILE: join(checkout, "out.sarif"),
        GITHUB_ACTION_PATH: checkout,
        GITHUB_OUTPUT: join(checkout, "github-output"),
      },
    });
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(validate.stdout, /redis\.yaml:48: Module default\/redis: spec\.config\.replicas/);
  });

  test("several paths, one per line, all admitted: exit-code 0 and the job passes", () => {
    const result = validateStep(`${customApp}\nexamples/create-helm-module.json\n`);
    assert.equal(result.exitCode, "0", result.stdout);
    assert.equal(failStep("0").code, 0);
  });

  test("an unreadable path: exit-code 2, SARIF still written (the tool's failure in it) and uploaded, the job fails", () => {
    const result = validateStep("no/such/dir");
    assert.equal(result.exitCode, "2");
    const text = readFileSync(result.sarifFile, "utf8");
    assert.ok(checkSarif(JSON.parse(text)), JSON.stringify(checkSarif.errors));
    const sarif: Anything = JSON.parse(text);
    assert.equal(sarif.runs[0].invocations[0].executionSuccessful, false);
    assert.equal(failStep("2").code, 2);
    assert.doesNotMatch(step("Upload SARIF").if, /exit-code/);
  });

  test("the SARIF file the Validate step writes is the one uploaded for code scanning, even after a denial", () => {
    const upload = step("Upload SARIF");
    assert.match(upload.uses, /^github\/codeql-action\/upload-sarif@v\d+$/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not JavaScript
    const sarifInput = "${{ inputs.sarif-file }}";
    assert.equal(upload.with.sarif_file, sarifInput);
    assert.equal(step("validate").env.SARIF_FILE, sarifInput);
    assert.match(upload.if, /always\(\)/);
  });
});

describe(".pre-commit-hooks.yaml", () => {
  const [hook] = yamlFile(".pre-commit-hooks.yaml") as Anything[];

  /** pre-commit's command line: the entry split as shlex does, the args, then the changed files it matches. */
  function preCommit(changed: string[]) {
    const words = [...(hook.entry as string).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
    const files = changed.filter((file) => new RegExp(hook.files).test(file));
    const [command, ...args] = [...words, ...(hook.args ?? []), ...files];
    return run(command ?? "", args);
  }

  test("the changed manifests are checked: a denial fails the commit, with file:line findings", () => {
    assert.equal(hook.pass_filenames, true);
    const result = preCommit([customApp, redis, "README.md"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^examples\/modules\/redis\.yaml:48: Module default\/redis/m);
  });

  test("admitted manifests pass; files that are not manifests are not passed", () => {
    assert.equal(preCommit([customApp, "README.md", "src/cli/main.ts"]).code, 0);
    assert.ok(!new RegExp(hook.files).test("README.md"));
    assert.ok(new RegExp(hook.files).test("a/b.yml"));
  });
});

describe("GitOps examples", { skip: withoutGo }, () => {
  /** A kustomization of example Modules, as an Argo CD application's or a Flux Kustomization's path. */
  function kustomization(dir: string, files: string[]) {
    mkdirSync(dir, { recursive: true });
    for (const file of files) copyFileSync(join(root, file), join(dir, file.split("/").at(-1) as string));
    writeFileSync(
      join(dir, "kustomization.yaml"),
      `resources:\n${files.map((f) => `  - ${f.split("/").at(-1)}`).join("\n")}\n`,
    );
  }

  test("Argo CD plugin: generate renders with kubectl kustomize, a denial fails it with the findings on stderr", () => {
    const plugin = yamlFile("examples/argocd/config-management-plugin.yaml");
    const { command, args } = plugin.spec.generate;
    const app = mkdtempSync(join(tmpdir(), "argocd-app-"));
    kustomization(app, [redis, customApp]);
    // The plugin's temporary files go here: none may be left behind.
    const temp = mkdtempSync(join(tmpdir(), "argocd-tmp-"));
    const env = { TMPDIR: temp, ARGOCD_APP_SOURCE_PATH: "apps/redis" };
    const denied = run(command[0], [...command.slice(1), ...args], { cwd: app, env });
    assert.notEqual(denied.code, 0);
    assert.equal(denied.stdout, "", "no manifests for Argo CD to apply");
    assert.match(
      denied.stderr,
      /^apps\/redis\/kustomization\.yaml:\d+: Module default\/redis: spec\.config\.replicas: Invalid value: 7/m,
    );
    assert.doesNotMatch(denied.stderr, new RegExp(temp));
    assert.deepEqual(readdirSync(temp), []);

    const clean = mkdtempSync(join(tmpdir(), "argocd-app-"));
    kustomization(clean, [customApp]);
    const admitted = run(command[0], [...command.slice(1), ...args], { cwd: clean, env });
    assert.equal(admitted.code, 0, admitted.stderr);
    assert.deepEqual(readdirSync(temp), []);
    const manifests = loadAll(admitted.stdout) as { kind: string; metadata: { name: string } }[];
    assert.deepEqual(
      manifests.map((m) => `${m.kind}/${m.metadata.name}`),
      ["Module/custom-app"],
    );
    assert.equal(plugin.spec.discover.fileName, "kustomization.yaml");
  });

  test("kubectl kustomize with origin annotations piped in: findings at the source file's lines (text, JSON, SARIF)", () => {
    const repo = mkdtempSync(join(tmpdir(), "kustomize-origin-"));
    kustomization(join(repo, "base"), [redis, customApp]);
    mkdirSync(join(repo, "overlays", "prod"), { recursive: true });
    writeFileSync(
      join(repo, "overlays", "prod", "kustomization.yaml"),
      "resources:\n  - ../../base\nnamePrefix: prod-\nbuildMetadata: [originAnnotations]\n",
    );
    const built = run("kubectl", ["kustomize", "overlays/prod"], { cwd: repo });
    assert.equal(built.code, 0, built.stderr);
    assert.match(built.stdout, /config\.kubernetes\.io\/origin: \|\n\s+path: \.\.\/\.\.\/base\/redis\.yaml/);
    const validate = (args: string[]) =>
      spawnSync(
        join(bin, "module-admission"),
        ["validate", "-", "--kustomization", "overlays/prod", ...args],
        {
          cwd: repo,
          input: built.stdout,
          encoding: "utf8",
        },
      );
    // The line of spec.config.replicas in base/redis.yaml, as the source has it (renamed prod-redis).
    const line = readFileSync(join(root, redis), "utf8").split("\n").indexOf("    replicas: 7") + 1;
    const text = validate([]);
    assert.equal(text.status, 1, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`^base/redis\\.yaml:${line}: Module default/prod-redis: spec\\.config\\.replicas`, "m"),
    );
    const json = JSON.parse(validate(["-o", "json"]).stdout);
    const replicas = json.findings.find((f: Anything) => f.message.startsWith("spec.config.replicas"));
    assert.deepEqual([replicas.file, replicas.line], ["base/redis.yaml", line]);
    const sarif = JSON.parse(validate(["-o", "sarif"]).stdout);
    const error = sarif.runs[0].results.find((r: Anything) => r.level === "error");
    assert.deepEqual(error.locations[0].physicalLocation, {
      artifactLocation: { uri: "base/redis.yaml", uriBaseId: "SRCROOT" },
      region: { startLine: line },
    });
    // Without origin annotations, the lines of the build's output on stdin.
    const plain = run("kubectl", ["kustomize", "base"], { cwd: repo });
    const unannotated = spawnSync(join(bin, "module-admission"), ["validate", "-"], {
      cwd: repo,
      input: plain.stdout,
      encoding: "utf8",
    });
    assert.match(unannotated.stdout, /^<stdin>:\d+: Module default\/redis: spec\.config\.replicas/m);
  });

  test("Flux CI workflow: the render step (real kubectl kustomize), then the action on its output", () => {
    const workflow = yamlFile("examples/flux/validate-workflow.yaml");
    const steps = workflow.jobs.validate.steps as Anything[];
    const render = steps.find((s) => s.name === "Render the Flux Kustomization");
    const validate = steps.find((s) => /^forkspacer\/module-admission@/.test(s.uses ?? ""));
    const fleet = mkdtempSync(join(tmpdir(), "fleet-"));
    kustomization(join(fleet, "clusters", "production"), [redis, customApp]);
    const rendered = run("bash", ["-e", "-c", render.run], { cwd: fleet });
    assert.equal(rendered.code, 0, rendered.stderr);
    // The action's Validate step, with the workflow's `paths`.
    const action = yamlFile("action.yml");
    const script = action.runs.steps.find((s: { id?: string }) => s.id === "validate").run;
    const output = join(fleet, "github-output");
    const result = run("bash", ["-e", "-c", script], {
      cwd: fleet,
      env: {
        INPUT_PATHS: validate.with.paths,
        SARIF_FILE: join(fleet, "out.sarif"),
        GITHUB_ACTION_PATH: root,
        GITHUB_OUTPUT: output,
      },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(readFileSync(output, "utf8"), /^exit-code=1$/m);
    assert.match(result.stdout, /rendered\.yaml:\d+: Module default\/redis: spec\.config\.replicas/);
    assert.equal(workflow.permissions["security-events"], "write");
  });
});
