import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { load } from "js-yaml";
import { manifestDir } from "../support/cli.js";
import { kubectlBinary } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { buildCommand } from "../support/serve-process.js";

/**
 * The CI recipes of docs/ci.md, run as written: each command of each block, in a repository laid out as
 * the page assumes (Modules under modules/, this tool built in .module-admission/), through the built
 * command. Examples: the project's examples/modules (one Module denied).
 */

const root = fileURLToPath(new URL("../../", import.meta.url));
const section = readFileSync(join(root, "docs/ci.md"), "utf8");

/** The fenced block of the given language that follows the heading. */
function block(heading: string, language: string): string {
  const from = section.indexOf(heading);
  assert.ok(from >= 0, `docs/ci.md has ${heading}`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section.slice(from));
  assert.ok(match?.[1], `${heading} has a ${language} block`);
  return match[1];
}

const require = createRequire(import.meta.url);
const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats.default(ajv as never);
const checkSarif = ajv.compile(
  JSON.parse(
    readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"),
  ),
);

/** A user's repository: modules/ with the examples, and this tool (built) at .module-admission. */
function repository(): string {
  const dir = manifestDir({});
  cpSync(join(root, "examples/modules"), join(dir, "modules"), { recursive: true });
  symlinkSync(root, join(dir, ".module-admission"));
  return dir;
}

function sh(command: string, cwd: string, pathFirst?: string) {
  const env = pathFirst ? { ...process.env, PATH: `${pathFirst}:${process.env.PATH}` } : process.env;
  return spawnSync("bash", ["-c", command], { cwd, encoding: "utf8", env });
}

/** A folder holding only `kubectl`: the one built from Go modules (client = the control plane's). */
function kubectlOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "kubectl-bin-"));
  symlinkSync(kubectlBinary(), join(dir, "kubectl"));
  return dir;
}

const installed = (tool: string, ...args: string[]) =>
  spawnSync(tool, args, { encoding: "utf8" }).status === 0;

before(() => {
  buildCommand();
});

describe("docs/ci.md: CI recipes, run as written", () => {
  it("GitHub Actions: the validate step writes valid SARIF, exits 1 on the denial, and the upload still runs", () => {
    const workflow = load(block("## GitHub Actions", "yaml")) as {
      jobs: {
        modules: { steps: { run?: string; if?: string; uses?: string; with?: { sarif_file?: string } }[] };
      };
    };
    const steps = workflow.jobs.modules.steps;
    const validate = steps.find((step) => step.run?.includes("validate"));
    const upload = steps.find((step) => step.uses?.startsWith("github/codeql-action/upload-sarif"));
    assert.ok(validate?.run && upload);
    assert.equal(upload.if, "always()");
    const repo = repository();
    const run = sh(validate.run, repo);
    assert.equal(run.status, 1, run.stderr);
    const sarif = JSON.parse(readFileSync(join(repo, upload.with?.sarif_file ?? ""), "utf8"));
    assert.equal(checkSarif(sarif), true, JSON.stringify(checkSarif.errors));
    const located = sarif.runs[0].results.map(
      (result: {
        locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId: string } } }[];
      }) => result.locations[0]?.physicalLocation.artifactLocation,
    );
    assert.deepEqual(located[0], { uri: "modules/redis.yaml", uriBaseId: "SRCROOT" });
  });

  it("GitLab CI: the first script line fails the job, the second keeps the findings and the summary", () => {
    const job = (
      load(block("## GitLab CI", "yaml")) as Record<
        string,
        { script: string[]; artifacts: { paths: string[] } }
      >
    )["module-admission"];
    assert.ok(job);
    const repo = repository();
    const [gate, report] = job.script;
    assert.ok(gate && report);
    assert.equal(sh(gate, repo).status, 1);
    sh(report, repo);
    const artifact = JSON.parse(readFileSync(join(repo, job.artifacts.paths[0] ?? ""), "utf8"));
    assert.deepEqual(artifact.summary, {
      files: 2,
      unreadable: 0,
      objects: 3,
      checked: 3,
      skipped: {},
      denied: 1,
      warned: 1,
      client: "as a GitOps tool sends it",
      notChecked: [
        {
          check: "module.workspace-exists",
          objects: 3,
          reason:
            "Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR",
        },
      ],
    });
  });

  it("pre-commit: the hook's entry, given the staged files its pattern matches, fails on the denied Module", () => {
    const config = load(block("## pre-commit", "yaml")) as {
      repos: { hooks: { entry: string; files: string }[] }[];
    };
    const hook = config.repos[0]?.hooks[0];
    assert.ok(hook);
    const staged = ["modules/redis.yaml", "modules/custom-app.yaml", "README.md"].filter((file) =>
      new RegExp(hook.files).test(file),
    );
    assert.deepEqual(staged, ["modules/redis.yaml", "modules/custom-app.yaml"]);
    const repo = repository();
    const denied = sh(`${hook.entry} ${staged.join(" ")}`, repo);
    assert.equal(denied.status, 1);
    assert.match(denied.stdout, /^modules\/redis\.yaml:48: Module default\/redis: spec\.config\.replicas/m);
    assert.equal(sh(`${hook.entry} modules/custom-app.yaml`, repo).status, 0);
  });

  it("kustomize: the pipe, with kubectl's kustomize", { skip: withoutGo }, () => {
    const command = block("## kustomize and kpt", "sh");
    const repo = repository();
    mkdirSync(join(repo, "overlays/prod"), { recursive: true });
    cpSync(join(root, "examples/modules/redis.yaml"), join(repo, "overlays/prod/redis.yaml"));
    writeFileSync(join(repo, "overlays/prod/kustomization.yaml"), "resources: [redis.yaml]\n");
    const run = sh(command, repo, kubectlOnPath());
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stdout,
      /^<stdin>:\d+: Module default\/redis: spec\.config\.replicas: Invalid value: 7/m,
    );
  });

  it("kpt: the KRM function script, run by kpt fn eval", { skip: !installed("kpt", "version") }, () => {
    const from = section.indexOf("As a KRM function");
    const commands = /```sh\n([\s\S]*?)```/.exec(section.slice(from))?.[1];
    const shown = /```text\n([\s\S]*?)```/.exec(section.slice(from))?.[1];
    assert.ok(commands && shown);
    const repo = repository();
    const run = sh(commands, repo);
    assert.equal(run.status, 1, run.stderr);
    const output = `${run.stdout}${run.stderr}`;
    for (const line of shown.split("\n").filter((l) => l.includes("[error]") || l.includes("Results:"))) {
      assert.ok(output.includes(line), `kpt shows ${JSON.stringify(line)}:\n${output}`);
    }
  });
});
