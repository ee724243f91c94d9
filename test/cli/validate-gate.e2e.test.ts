import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { dump, load } from "js-yaml";
import type { Summary } from "../../src/offline/summary.js";
import { manifestDir } from "../support/cli.js";
import { customModule, helmModule } from "../support/modules.js";
import { buildCommand } from "../support/serve-process.js";

/** `validate` as a CI gate, through the built command as users run it (`node dist/cli/main.js`). */

const require = createRequire(import.meta.url);
const sarifSchema = JSON.parse(
  readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"),
);
const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats.default(ajv as never);
const checkSarif = ajv.compile(sarifSchema);

interface SarifLog {
  runs: {
    tool: {
      driver: {
        version: string;
        rules: { id: string; shortDescription: { text: string }; help: { text: string }; helpUri?: string }[];
      };
    };
    originalUriBaseIds?: Record<string, { uri: string }>;
    invocations: { executionSuccessful: boolean }[];
    properties?: { summary: Summary };
    results: {
      ruleId: string;
      level: string;
      message: { text: string };
      locations: {
        physicalLocation: {
          artifactLocation: { uri: string; uriBaseId?: string };
          region?: { startLine: number };
        };
      }[];
    }[];
  }[];
}

interface Finding {
  severity: string;
  file: string;
  line?: number;
  rule: string;
  message: string;
}

let main = "";

/**
 * Runs the built command; every SARIF it writes is checked against the SARIF 2.1.0 schema (the check
 * fails on what is not SARIF: validate.test.ts shows it).
 */
function cli(args: string[], options: { input?: string; cwd?: string } = {}) {
  const run = spawnSync(process.execPath, [main, ...args], { encoding: "utf8", ...options });
  const output = args[args.indexOf("-o") + 1];
  if (args.includes("-o") && output === "sarif") {
    const sarif = JSON.parse(run.stdout);
    assert.equal(checkSarif(sarif), true, JSON.stringify(checkSarif.errors, null, 2));
  }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const sarifOf = (run: { stdout: string }) => JSON.parse(run.stdout) as SarifLog;
const jsonOf = (run: { stdout: string }) =>
  JSON.parse(run.stdout) as { findings: Finding[]; summary: Summary; executionSuccessful: boolean };

const deniedModule = () => {
  const module = helmModule();
  module.spec.config = { ...module.spec.config, replicas: 7 };
  return module;
};

const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: {} };

before(() => {
  main = buildCommand();
});

/** The note every run with Modules ends with: serve's Workspace lookup, not made offline. */
const workspaceLookup =
  "Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR";

describe("validate never passes silently", () => {
  it("denies an object of a served group with a version or kind it does not serve, naming what it serves", () => {
    const typos = {
      "v1beta1.yaml": [{ ...helmModule(), apiVersion: "batch.forkspacer.com/v1beta1" }],
      "plural.yaml": [{ ...helmModule(), kind: "Modules" }],
      "lower.yaml": [{ ...helmModule(), kind: "module" }],
      "typo.yaml": [{ ...helmModule(), kind: "Modul" }],
      "group.yaml": [{ ...helmModule(), apiVersion: "batch.forkspacr.com/v1" }],
      "kyma.yaml": [
        { apiVersion: "operator.kyma-project.io/v1beta1", kind: "ModuleTemplate", metadata: { name: "t" } },
      ],
    };
    const dir = manifestDir(typos);
    const run = cli(["validate", dir, "-o", "json"]);
    assert.equal(run.status, 1, run.stderr);
    const { findings, summary } = jsonOf(run);
    assert.deepEqual(
      findings.map((f) => [f.file.slice(dir.length + 1), f.rule, f.message]),
      [
        [
          "group.yaml",
          "input/UnknownVersionOrKind",
          "batch.forkspacr.com/v1 Module is not served: no group batch.forkspacr.com; did you mean batch.forkspacer.com/v1 Module?",
        ],
        [
          "kyma.yaml",
          "input/UnknownVersionOrKind",
          "operator.kyma-project.io/v1beta1 ModuleTemplate is not served: operator.kyma-project.io serves v1beta2 ModuleTemplate, v1beta2 ModuleReleaseMeta; did you mean operator.kyma-project.io/v1beta2 ModuleTemplate?",
        ],
        [
          "lower.yaml",
          "input/UnknownVersionOrKind",
          "batch.forkspacer.com/v1 module is not served: batch.forkspacer.com serves v1 Module, v1 Workspace; did you mean batch.forkspacer.com/v1 Module?",
        ],
        [
          "plural.yaml",
          "input/UnknownVersionOrKind",
          "batch.forkspacer.com/v1 Modules is not served: batch.forkspacer.com serves v1 Module, v1 Workspace; did you mean batch.forkspacer.com/v1 Module?",
        ],
        [
          "typo.yaml",
          "input/UnknownVersionOrKind",
          "batch.forkspacer.com/v1 Modul is not served: batch.forkspacer.com serves v1 Module, v1 Workspace; did you mean batch.forkspacer.com/v1 Module?",
        ],
        [
          "v1beta1.yaml",
          "input/UnknownVersionOrKind",
          "batch.forkspacer.com/v1beta1 Module is not served: batch.forkspacer.com serves v1 Module, v1 Workspace; did you mean batch.forkspacer.com/v1 Module?",
        ],
      ],
    );
    assert.deepEqual(summary, {
      files: 6,
      unreadable: 0,
      objects: 6,
      checked: 6,
      skipped: {},
      denied: 6,
      warned: 0,
      client: "as a GitOps tool sends it",
    });
  });

  it("skips other systems' kinds, even one named Module, and counts them", () => {
    const terraform = { apiVersion: "app.terraform.io/v1alpha2", kind: "Module", metadata: { name: "vpc" } };
    // lifecycle-manager's other kinds share the group of ModuleTemplate: theirs, not a typo of ours.
    const kyma = {
      apiVersion: "operator.kyma-project.io/v1beta2",
      kind: "Kyma",
      metadata: { name: "default" },
    };
    const dir = manifestDir({
      "mixed.yaml": [deployment, terraform, kyma, customModule()],
      "package.json": JSON.stringify({ name: "x", version: "1.0.0" }),
    });
    const run = cli(["validate", join(dir, "mixed.yaml"), join(dir, "package.json")]);
    assert.equal(run.status, 0, run.stdout);
    assert.equal(
      run.stdout,
      "2 files, 5 objects read; 1 checked (0 denied, 0 warned); 4 skipped (no schema: 1 app.terraform.io/v1alpha2 Module, 1 apps/v1 Deployment, 1 no apiVersion and kind, 1 operator.kyma-project.io/v1beta2 Kyma); judged as a GitOps tool sends it\n" +
        // The lookup serve makes in the cluster, named once (test/cli/validate-lookups.e2e.test.ts).
        "not checked: module.workspace-exists (1 object): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR\n",
    );
    assert.equal(run.stderr, "");
  });

  it("ends every run with a summary: text, JSON and SARIF", () => {
    const warned = helmModule();
    Object.assign(warned.spec, { hibernate: true });
    const dir = manifestDir({ "a.yaml": [customModule(), deniedModule(), warned], "b.yaml": [deployment] });
    const text = cli(["validate", dir]);
    assert.equal(text.status, 1);
    assert.match(
      text.stdout,
      /\n2 files, 4 objects read; 3 checked \(1 denied, 1 warned\); 1 skipped \(no schema: 1 apps\/v1 Deployment\); judged as a GitOps tool sends it\nnot checked: module\.workspace-exists \(3 objects\): [^\n]+\n$/,
    );
    const expected = {
      files: 2,
      unreadable: 0,
      objects: 4,
      checked: 3,
      skipped: { "apps/v1 Deployment": 1 },
      denied: 1,
      warned: 1,
      client: "as a GitOps tool sends it",
      notChecked: [{ check: "module.workspace-exists", objects: 3, reason: workspaceLookup }],
    };
    assert.deepEqual(jsonOf(cli(["validate", dir, "-o", "json"])).summary, expected);
    const sarif = sarifOf(cli(["validate", dir, "-o", "sarif"]));
    assert.deepEqual(sarif.runs[0]?.properties?.summary, expected);
    assert.deepEqual(sarif.runs[0]?.invocations, [
      {
        executionSuccessful: true,
        toolExecutionNotifications: [
          {
            level: "note",
            descriptor: { id: "module.workspace-exists" },
            message: { text: `not checked (3 objects): ${workspaceLookup}` },
          },
        ],
      },
    ]);
  });

  it("says plainly when there is nothing to check, with exit 2 when nothing was read", () => {
    const empty = manifestDir({});
    const folder = cli(["validate", empty]);
    assert.deepEqual(
      [folder.status, folder.stderr],
      [2, `module-admission validate: nothing to check: no *.yaml, *.yml or *.json files in ${empty}\n`],
    );
    // A failed `kustomize build` in a pipe without pipefail hands over nothing: no pass.
    const stdin = cli(["validate", "-"], { input: "" });
    assert.deepEqual(
      [stdin.status, stdin.stderr],
      [2, "module-admission validate: nothing to check: no objects in stdin\n"],
    );
    const other = cli(["validate", "-"], { input: dump(deployment) });
    assert.equal(other.status, 0);
    assert.match(
      other.stderr,
      /nothing checked: none of the 1 objects is of a kind validate knows \(Module, /,
    );
  });
});

describe("validate keeps going", () => {
  it("reports a broken file and a missing one at their place, still judges the rest, and always writes SARIF", () => {
    const dir = manifestDir({
      "broken.yaml": "apiVersion: v1\nkind: ConfigMap\ndata: [unclosed\n",
      "denied.yaml": [deniedModule()],
    });
    const text = cli(["validate", dir, join(dir, "absent.yaml")]);
    assert.equal(text.status, 2);
    const lines = text.stdout.replaceAll(`${dir}/`, "").trimEnd().split("\n");
    assert.equal(lines[0], "absent.yaml: no such file or directory");
    assert.match(lines[1] ?? "", /^broken\.yaml:\d+: /);
    assert.match(
      lines[2] ?? "",
      /^denied\.yaml:\d+: Module default\/redis: spec\.config\.replicas: Invalid value: 7/,
    );
    assert.match(lines.at(-2) ?? "", /2 inputs unreadable; judged as a GitOps tool sends it$/);
    assert.match(lines.at(-1) ?? "", /^not checked: module\.workspace-exists /);

    const sarif = sarifOf(cli(["validate", dir, join(dir, "absent.yaml"), "-o", "sarif"]));
    const run = sarif.runs[0];
    assert.equal(run?.invocations?.[0]?.executionSuccessful, false);
    assert.deepEqual([...new Set(run?.results.map((r) => r.ruleId))].sort(), [
      "input/Unreadable",
      "validating-webhook/module.config-value",
    ]);
    const json = cli(["validate", dir, "-o", "json"]);
    assert.equal(json.status, 2);
    assert.equal(jsonOf(json).executionSuccessful, false);
  });
});

describe("command-line conventions", () => {
  const commands = ["serve", "validate", "schema", "install-crds", "lint-modules", "audit"];

  it("answers --help and -h on every command, help and --version at the top", () => {
    for (const command of commands) {
      for (const flag of ["--help", "-h"]) {
        const run = cli([command, flag]);
        assert.equal(run.status, 0, `${command} ${flag}: ${run.stderr}`);
        assert.match(run.stdout, new RegExp(`^Usage: module-admission ${command} `), command);
      }
      assert.equal(cli(["help", command]).stdout, cli([command, "--help"]).stdout);
    }
    const top = cli(["--help"]);
    assert.equal(top.status, 0);
    for (const command of commands) assert.match(top.stdout, new RegExp(`\\n  ${command} `));
    assert.equal(cli(["help"]).stdout, top.stdout);
    const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
    assert.deepEqual(cli(["--version"]), { status: 0, stdout: `${version}\n`, stderr: "" });
    // The help is generated from the definitions: every option validate parses is listed.
    const validateHelp = cli(["validate", "--help"]).stdout;
    for (const option of [
      "--filename",
      "--old",
      "--strict",
      "--rule-action",
      "--output",
      "--stdin-filename",
      "--krm",
    ]) {
      assert.match(validateHelp, new RegExp(option));
    }
    assert.match(
      cli(["audit", "--help"]).stdout,
      /Module,\s+Workspace,\s+ModuleTemplate,\s+ModuleReleaseMeta/,
    );
  });

  it("suggests what was meant for an unknown command or option, exit 2", () => {
    const command = cli(["valdate"]);
    assert.equal(command.status, 2);
    assert.match(command.stderr, /unknown command 'valdate'\n\(Did you mean validate\?\)/);
    const option = cli(["validate", "--show-mutation", "x.yaml"]);
    assert.equal(option.status, 2);
    assert.match(option.stderr, /unknown option '--show-mutation'\n\(Did you mean --show-mutations\?\)/);
    const audit = cli(["audit", "--all-namespace"]);
    assert.equal(audit.status, 2);
    assert.match(audit.stderr, /Did you mean --all-namespaces\?/);
  });

  it("takes paths as arguments (FILE, DIR, -), as a pre-commit hook passes them, with -f kept", () => {
    const dir = manifestDir({ "good.yaml": [customModule()], "bad.yaml": [deniedModule()] });
    mkdirSync(join(dir, "more"));
    const byArgument = cli(["validate", join(dir, "good.yaml"), join(dir, "more"), "-"], {
      input: dump(deniedModule()),
    });
    assert.equal(byArgument.status, 1);
    assert.match(byArgument.stdout, /^<stdin>:\d+: Module default\/redis: spec\.config\.replicas/m);
    assert.match(byArgument.stdout, /2 files, 2 objects read/);
    const mixed = cli(["validate", "-f", join(dir, "good.yaml"), join(dir, "bad.yaml"), "-o", "json"]);
    assert.equal(jsonOf(mixed).summary.files, 2);
    assert.equal(mixed.status, 1);
  });
});

describe("validate as a KRM function (kustomize, kpt)", () => {
  const resourceList = (items: unknown[]) =>
    dump({
      apiVersion: "config.kubernetes.io/v1",
      kind: "ResourceList",
      functionConfig: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fn" } },
      items: items.map((item, index) => {
        const object = structuredClone(item) as { metadata: { annotations?: Record<string, string> } };
        object.metadata.annotations = {
          "config.kubernetes.io/path": "modules/all.yaml",
          "config.kubernetes.io/index": String(index),
        };
        return object;
      }),
    });

  it("reads a ResourceList on stdin as its items and answers with results, exit 1 when one is an error", () => {
    const run = cli(["validate", "-"], { input: resourceList([customModule(), deployment, deniedModule()]) });
    assert.equal(run.status, 1, run.stderr);
    const answer = load(run.stdout) as {
      apiVersion: string;
      kind: string;
      items: { kind: string }[];
      results: Record<string, unknown>[];
    };
    assert.equal(answer.kind, "ResourceList");
    assert.equal(answer.apiVersion, "config.kubernetes.io/v1");
    assert.deepEqual(
      answer.items.map((item) => item.kind),
      ["Module", "Deployment", "Module"],
    );
    assert.deepEqual(answer.results, [
      {
        message: "Invalid value: 7: must be less than or equal to 5",
        severity: "error",
        resourceRef: {
          apiVersion: "batch.forkspacer.com/v1",
          kind: "Module",
          name: "redis",
          namespace: "default",
        },
        field: { path: "spec.config.replicas" },
        file: { path: "modules/all.yaml", index: 2 },
        tags: { rule: "validating-webhook/module.config-value" },
      },
      {
        message: `not checked (2 objects): ${workspaceLookup}`,
        severity: "info",
        tags: { rule: "module.workspace-exists" },
      },
    ]);
    const clean = cli(["validate", "-"], { input: resourceList([customModule()]) });
    assert.equal(clean.status, 0);
    assert.deepEqual(
      (load(clean.stdout) as { results: { severity: string }[] }).results.map((r) => r.severity),
      ["info"],
    );
  });

  // kpt, where installed (Google Cloud SDK ships it): `kpt fn eval --exec` runs validate as a function.
  const kpt = spawnSync("kpt", ["version"], { encoding: "utf8" });
  it("runs as a kpt function: results shown, exit 1 on an error, files kept as they were", {
    skip: kpt.status === 0 ? false : "kpt is not installed",
  }, () => {
    const dir = manifestDir({});
    const module = readFileSync(new URL("../../examples/modules/redis.yaml", import.meta.url), "utf8");
    mkdirSync(join(dir, "modules"));
    writeFileSync(join(dir, "modules", "redis.yaml"), module);
    writeFileSync(join(dir, "module-admission-krm"), `#!/bin/sh\nexec node ${main} validate --krm -\n`, {
      mode: 0o755,
    });
    const kptRun = (text: string) => {
      writeFileSync(join(dir, "modules", "redis.yaml"), text);
      return spawnSync("kpt", ["fn", "eval", "--exec", "./module-admission-krm", "modules"], {
        cwd: dir,
        encoding: "utf8",
      });
    };
    const denied = kptRun(module);
    assert.equal(denied.status, 1, denied.stderr);
    const shown = `${denied.stdout}${denied.stderr}`;
    assert.match(
      shown,
      /\[error\] batch\.forkspacer\.com\/v1\/Module\/default\/redis spec\.config\.replicas: Invalid value: 7: must be less than or equal to 5/,
    );
    assert.match(shown, /\[warning\] .* spec\.helm\.relaseName: unknown field "spec\.helm\.relaseName"/);
    // Admitted with a warning: kpt writes the items back, so comments and layout must survive.
    const admitted = module.replace("replicas: 7", "replicas: 3");
    const passed = kptRun(admitted);
    assert.equal(passed.status, 0, `${passed.stdout}${passed.stderr}`);
    assert.equal(readFileSync(join(dir, "modules", "redis.yaml"), "utf8"), admitted);
  });

  it("answers files with a ResourceList under --krm", () => {
    const dir = manifestDir({ "m.yaml": [deniedModule()] });
    const run = cli(["validate", "--krm", join(dir, "m.yaml")]);
    assert.equal(run.status, 1);
    const answer = load(run.stdout) as { kind: string; results: { severity: string }[] };
    assert.equal(answer.kind, "ResourceList");
    assert.deepEqual(
      answer.results.map((r) => r.severity),
      ["error", "info"],
    );
  });
});

describe("SARIF that GitHub code scanning renders", () => {
  it("has rule metadata for every rule, the tool's version, and RFC 3986 URIs relative to a base", () => {
    const dir = manifestDir({});
    mkdirSync(join(dir, "modules #1"));
    const files = manifestDir({ "x.yaml": [deniedModule(), { ...helmModule(), kind: "Modules" }] });
    const text = readFileSync(join(files, "x.yaml"), "utf8");
    writeFileSync(join(dir, "modules #1", "a%b?.yaml"), text);
    const run = cli(["validate", "modules #1", "-o", "sarif"], { cwd: dir });
    const sarif = sarifOf(run).runs[0];
    assert.ok(sarif);
    assert.match(sarif.tool.driver.version, /^\d+\.\d+\.\d+/);
    for (const rule of sarif.tool.driver.rules) {
      assert.ok(rule.shortDescription.text.length > 0 && rule.help.text.length > 0, rule.id);
    }
    assert.deepEqual(
      sarif.tool.driver.rules.map((r) => r.id).sort(),
      [...new Set(sarif.results.map((r) => r.ruleId))].sort(),
    );
    assert.equal(sarif.originalUriBaseIds?.SRCROOT?.uri, `file://${dir}/`);
    const location = sarif.results[0]?.locations[0]?.physicalLocation.artifactLocation;
    assert.deepEqual(location, { uri: "modules%20%231/a%25b%3F.yaml", uriBaseId: "SRCROOT" });
  });

  it("names stdin as --stdin-filename says", () => {
    const dir = manifestDir({});
    const run = cli(["validate", "-", "--stdin-filename", "modules/redis.yaml", "-o", "sarif"], {
      input: dump(deniedModule()),
      cwd: dir,
    });
    const location = sarifOf(run).runs[0]?.results[0]?.locations[0]?.physicalLocation.artifactLocation;
    assert.deepEqual(location, { uri: "modules/redis.yaml", uriBaseId: "SRCROOT" });
    const text = cli(["validate", "-", "--stdin-filename", "modules/redis.yaml"], {
      input: dump(deniedModule()),
    });
    assert.match(text.stdout, /^modules\/redis\.yaml:\d+: Module default\/redis/);
  });
});

describe("lint-modules says when it found no modules", () => {
  it("exits 2 for a directory without module directories", () => {
    const dir = manifestDir({ "values.yaml": "a: 1\n" });
    const run = cli(["lint-modules", dir, "-o", "sarif"]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /nothing to check: no module directories in /);
  });
});

describe("one finding per problem", () => {
  it("reports what the API server reports: the CRD's CEL errors, and no webhook after them", () => {
    const both = helmModule();
    Object.assign(both.spec, { custom: { image: "x:1" } });
    if (both.spec.helm) {
      both.spec.helm.chart = {
        ...both.spec.helm.chart,
        git: { repo: "https://example.com/c.git", path: "c" },
      };
      both.spec.helm.releaseName = "Bad_Name";
    }
    // The webhook's alone: the API server never calls the validating webhook after a CEL error.
    both.spec.config = { ...both.spec.config, replicas: 7 };
    const dir = manifestDir({ "both.yaml": [both] });
    const run = cli(["validate", join(dir, "both.yaml"), "-o", "json"]);
    assert.equal(run.status, 1);
    const errors = jsonOf(run).findings.map((f) => `${f.rule} ${f.message.slice(0, f.message.indexOf(":"))}`);
    assert.deepEqual(errors, [
      // The CRD's rules name the field they forbid (fieldPath, reason), as the API server reports them;
      // the API server calls no validating webhook after them.
      "cel/module.source spec.custom",
      "cel/module.chart-source spec.helm.chart.git",
      "cel/module.release-name spec.helm.releaseName",
    ]);
    // Each CEL finding names its declared rule, with the rule's entry in the reference, in every format.
    const sarif = sarifOf(cli(["validate", join(dir, "both.yaml"), "-o", "sarif"]));
    const rules = sarif.runs[0]?.tool.driver.rules ?? [];
    assert.deepEqual(
      rules.map((rule) => [rule.id, rule.helpUri?.replace(/^.*#/, "#")]),
      [
        ["cel/module.chart-source", "#module.chart-source"],
        ["cel/module.release-name", "#module.release-name"],
        ["cel/module.source", "#module.source"],
      ],
    );
    const junit = cli(["validate", join(dir, "both.yaml"), "-o", "junit"]).stdout;
    assert.match(
      junit,
      /may not be set together with spec\.helm \(rule module\.source\) \[cel\/module\.source\]/,
    );
    const text = cli(["validate", join(dir, "both.yaml")]).stdout;
    assert.match(
      text,
      /spec\.custom: Forbidden: may not be set together with spec\.helm \(rule module\.source\)/,
    );
  });
});

describe("warnings have rule ids", () => {
  it("names a warning's rule in JSON and SARIF, and --rule-action ID=off silences it", () => {
    const module = helmModule();
    if (module.spec.helm?.chart.repo) delete module.spec.helm.chart.repo.version;
    const dir = manifestDir({ "m.yaml": [module] });
    const file = join(dir, "m.yaml");
    const shown = jsonOf(cli(["validate", file, "-o", "json"]));
    assert.deepEqual(
      shown.findings.map((f) => [f.severity, f.rule]),
      [["warning", "validating-webhook/module.chart-version-unset"]],
    );
    const sarif = sarifOf(cli(["validate", file, "-o", "sarif"])).runs[0];
    assert.equal(sarif?.results[0]?.ruleId, "validating-webhook/module.chart-version-unset");
    assert.equal(sarif?.results[0]?.level, "warning");
    const off = cli(["validate", file, "--rule-action", "module.chart-version-unset=off", "-o", "json"]);
    assert.equal(off.status, 0);
    assert.deepEqual(jsonOf(off).findings, []);
    assert.equal(jsonOf(off).summary.warned, 0);
    const deny = cli(["validate", file, "--rule-action", "module.chart-version-unset=deny"]);
    assert.equal(deny.status, 2);
    assert.match(deny.stderr, /module\.chart-version-unset only warns: give warn or off/);
  });
});
