import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { dump } from "js-yaml";
import type { Finding } from "../../src/base/finding.js";
import { builtCli } from "../support/built-cli.js";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { customModule, helmModule } from "../support/modules.js";

/** 1-based line of the first line of `text` that contains `needle` after line `after`. */
function lineOf(text: string, needle: string, after = 0): number {
  const index = text.split("\n").findIndex((line, i) => i >= after && line.includes(needle));
  assert.ok(index >= 0, `fixture has no line with ${needle}`);
  return index + 1;
}

const badModule = () => {
  const module = helmModule();
  module.spec.config = { ...module.spec.config, replicas: 7, host: "Bad_Host" };
  return module;
};

/** Three documents: a kind validate does not know, a valid Module, a Module with two errors. */
const multiDocument = [
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { a: "b" } },
  customModule(),
  badModule(),
]
  .map((doc) => dump(doc))
  .join("---\n");

describe("validate: findings located on the offending line", () => {
  it("points each finding of a multi-document file at its field, in the third document", async () => {
    const dir = manifestDir({ "modules.yaml": multiDocument });
    const file = join(dir, "modules.yaml");
    const run = await validateCli(["-f", file]);
    const thirdDocument = lineOf(multiDocument, "name: redis") - 1;
    const replicasLine = lineOf(multiDocument, "replicas: 7", thirdDocument);
    const hostLine = lineOf(multiDocument, "host: Bad_Host", thirdDocument);
    assert.equal(run.status, 1);
    const lines = run.stdout.trimEnd().split("\n");
    assert.ok(
      lines.includes(
        `${file}:${replicasLine}: Module default/redis: spec.config.replicas: Invalid value: 7: must be less than or equal to 5`,
      ),
      run.stdout,
    );
    assert.ok(
      lines.some((l) => l.startsWith(`${file}:${hostLine}: Module default/redis: spec.config.host: `)),
      run.stdout,
    );
    assert.ok(
      thirdDocument > lineOf(multiDocument, "kind: Module"),
      "the bad Module is not the first document",
    );
  });

  it("points a missing field at its parent, an unknown field at itself, and list items in a List", async () => {
    const module = helmModule();
    delete (module.spec as { workspace?: unknown }).workspace;
    Object.assign(module.spec, { hibernate: true });
    const list = dump({ apiVersion: "v1", kind: "List", items: [customModule(), module] });
    const dir = manifestDir({ "list.yaml": list });
    const findings = jsonFindings(await validateCli(["-f", join(dir, "list.yaml"), "-o", "json"]));
    const second = lineOf(list, "name: redis");
    const required = findings.find((f) => f.message === "spec.workspace: Required value");
    assert.equal(required?.line, lineOf(list, "spec:", second));
    const unknown = findings.find((f) => f.message === 'unknown field "spec.hibernate"');
    assert.equal(unknown?.severity, "warning");
    assert.equal(unknown?.line, lineOf(list, "hibernate: true"));
  });
});

describe("validate: inputs", () => {
  it("reads stdin with -f -, so a kustomize build can be piped in", async () => {
    const run = await validateCli(["-f", "-"], multiDocument);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /^<stdin>:\d+: Module default\/redis: spec\.config\.replicas: /m);
  });

  it("leaves out a Helm chart's template named as a file (a hook passes it), as a walk does, and says so", () => {
    const dir = manifestDir({ "module.yaml": [customModule()] });
    mkdirSync(join(dir, "chart", "templates", "nested"), { recursive: true });
    writeFileSync(join(dir, "chart", "Chart.yaml"), "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    const template = join(dir, "chart", "templates", "nested", "deployment.yaml");
    writeFileSync(template, "metadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n{{- end }}\n");
    const alone = builtCli(["validate", template]);
    assert.equal(alone.status, 0, alone.stderr);
    assert.equal(alone.stderr, "");
    assert.match(
      alone.stdout,
      new RegExp(
        `^not read: ${template} \\(a Helm chart's template: validate \`helm template\` output instead\\)$`,
        "m",
      ),
    );
    const beside = builtCli(["validate", "-o", "json", template, join(dir, "module.yaml")]);
    assert.equal(beside.status, 0, beside.stderr);
    assert.equal(JSON.parse(beside.stdout).summary.checked, 1);
    // Not a chart's: a templates/ folder without a Chart.yaml beside it is read.
    const plain = manifestDir({ "x.yaml": "a: {{ b }}\n" });
    mkdirSync(join(plain, "templates"));
    writeFileSync(join(plain, "templates", "x.yaml"), "a: [\n");
    assert.equal(builtCli(["validate", join(plain, "templates", "x.yaml")]).status, 2);
  });

  it("reads a repeated key as kubectl does, the last value, with a warning naming its lines", () => {
    const module = (values: string) =>
      `apiVersion: batch.forkspacer.com/v1\nkind: Module\nmetadata:\n  name: dup\n  namespace: default\nspec:\n  workspace: {name: dev}\n  custom: {image: "a:1"}\n${values}`;
    const dir = manifestDir({ "ok.yaml": module("  hibernated: 7\n  hibernated: true\n") });
    for (const reader of ["gitops", "kubectl"]) {
      const run = builtCli(["validate", "--yaml", reader, join(dir, "ok.yaml")]);
      assert.equal(run.status, 0, run.stdout);
      assert.match(
        run.stdout,
        /^.*ok\.yaml:9: warning: Module default\/dup: spec\.hibernated: the key is repeated \(lines 9, 10\): read as kubectl and the API server read it, the last value$/m,
      );
    }
    const bad = manifestDir({ "bad.yaml": module("  hibernated: true\n  hibernated: 7\n") });
    const denied = builtCli(["validate", "-o", "json", join(bad, "bad.yaml")]);
    assert.equal(denied.status, 1, denied.stdout);
    assert.deepEqual(
      JSON.parse(denied.stdout)
        .findings.filter((f: Finding) => f.severity === "error")
        .map((f: Finding) => [f.line, f.message.split(":")[0]]),
      // The type error also keeps the API server from running the CRD's CEL rules (`<nil>`: it says so).
      [
        [9, "spec.hibernated"],
        [1, "<nil>"],
      ],
    );
  });

  it("walks directories for .yaml, .yml and .json files only", async () => {
    const dir = manifestDir({
      "a.yaml": [customModule()],
      "b.yml": [badModule()],
      "c.json": JSON.stringify(badModule()),
      "notes.txt": "not: [a manifest",
    });
    const findings = jsonFindings(await validateCli(["-f", dir, "-o", "json"]));
    const files = [...new Set(findings.filter((f) => f.severity === "error").map((f) => f.file))];
    assert.deepEqual(files, [join(dir, "b.yml"), join(dir, "c.json")]);
    const jsonReplicas = findings.find(
      (f) => f.file === join(dir, "c.json") && f.message.startsWith("spec.config.replicas"),
    );
    assert.equal(jsonReplicas?.line, lineOf(JSON.stringify(badModule()), "replicas"));
  });

  it("reads empty files and comment-only documents as no objects", async () => {
    const dir = manifestDir({
      "empty.yaml": "",
      "comments.yaml": "# nothing yet\n---\n# still nothing\n...\n",
    });
    const run = await validateCli(["-f", dir]);
    // Nothing to check is said, and is no pass: a failed `kustomize build` piped in looks the same.
    assert.equal(run.status, 2);
    assert.equal(run.stderr, `module-admission validate: nothing to check: no objects in ${dir}\n`);
    assert.equal(
      run.stdout,
      "2 files, 0 objects read; 0 checked (0 denied, 0 warned); 0 skipped; judged as a GitOps tool sends it\n",
    );
  });

  it("reads an unquoted date as each client does, and warns that they differ", async () => {
    const text = dump(customModule()).replace("name: dev-environment", "name: 2024-01-01");
    const dir = manifestDir({ "date.yaml": text });
    const run = await validateCli(["-f", join(dir, "date.yaml")]);
    // kubectl apply -f (sigs.k8s.io/yaml over goyaml.v2) keeps the text; kustomize writes a timestamp.
    assert.deepEqual(
      [run.status, run.stdout],
      [
        0,
        `${join(dir, "date.yaml")}:12: warning: Module default/custom-app: spec.workspace.name: "2024-01-01T00:00:00Z" under YAML 1.2 (kustomize, Flux, kubectl -k), "2024-01-01" under YAML 1.1 (kubectl apply -f): quote it to mean one thing\n` +
          "1 file, 1 object read; 1 checked (0 denied, 1 warned); 0 skipped; judged as a GitOps tool sends it\nnot checked: module.workspace-exists (1 object): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR\n",
      ],
    );
  });

  it("answers malformed objects with field errors, never a crash", async () => {
    const text = [
      "apiVersion: batch.forkspacer.com/v1\nkind: Module\nmetadata: {name: a}\nspec: just text\n",
      "apiVersion: batch.forkspacer.com/v1\nkind: Module\nmetadata: [1]\nspec: null\nconfig: 5\n",
      "apiVersion: batch.forkspacer.com/v1\nkind: Module\nmetadata: {name: c}\nspec: null\nconfig: 5\n",
    ].join("---\n");
    const dir = manifestDir({ "bad.yaml": text });
    const run = await validateCli(["-f", join(dir, "bad.yaml")]);
    assert.equal(run.status, 1);
    assert.deepEqual(
      run.stdout
        .trimEnd()
        .split("\n")
        .slice(0, -1) // the summary
        .map((line) => line.slice(line.indexOf("bad.yaml:"))),
      // What kube-apiserver 1.37 answers for each (checked against it by the differential test).
      [
        'bad.yaml:4: Module a: spec: Invalid value: "string": spec in body must be of type object: "string"',
        "bad.yaml:1: Module a: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        'bad.yaml:6: Module <unnamed>: Module in version "v1" cannot be handled as a Module: json: cannot unmarshal array into Go value of type v1.ObjectMeta',
        // The API server drops a null that the schema does not allow before defaulting: spec is missing.
        'bad.yaml:16: Module c: config: Invalid value: "integer": config in body must be of type array: "integer"',
        "bad.yaml:15: Module c: spec: Required value",
        "bad.yaml:12: Module c: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
      ],
    );
  });

  it("skips kinds it does not know, and reports them as errors with --strict", async () => {
    const dir = manifestDir({ "cm.yaml": multiDocument.split("---\n")[0] ?? "" });
    const lenient = await validateCli(["-f", join(dir, "cm.yaml")]);
    assert.deepEqual(
      [lenient.status, lenient.stdout],
      [
        0,
        "1 file, 1 object read; 0 checked (0 denied, 0 warned); 1 skipped (no schema: 1 v1 ConfigMap); judged as a GitOps tool sends it\n",
      ],
    );
    assert.match(lenient.stderr, /nothing checked: none of the 1 objects is of a kind validate knows/);
    const strict = await validateCli(["-f", join(dir, "cm.yaml"), "--strict"]);
    assert.equal(strict.status, 1);
    assert.match(strict.stdout, /cm\.yaml:1: ConfigMap settings: no schema for v1 ConfigMap \(--strict\)/);
  });

  it("applies update rules and CEL transition rules against --old", async () => {
    const renamed = helmModule();
    if (renamed.spec.helm) renamed.spec.helm.releaseName = "redis-other";
    const dir = manifestDir({ "new.yaml": [renamed], "old.yaml": [helmModule()] });
    const alone = await validateCli(["-f", join(dir, "new.yaml")]);
    assert.equal(alone.status, 0, alone.stdout);
    const run = await validateCli([
      "-f",
      join(dir, "new.yaml"),
      "--old",
      join(dir, "old.yaml"),
      "-o",
      "json",
    ]);
    assert.equal(run.status, 1);
    assert.deepEqual(
      jsonFindings(run)
        .filter((f) => f.severity === "error")
        .map((f) => [f.rule, f.message]),
      [
        [
          "cel/module.release-name-immutable",
          "spec.helm.releaseName: Invalid value: field is immutable once set (rule module.release-name-immutable)",
        ],
        // The webhook's module.release-name-immutable finds the same: reported once.
      ],
    );
  });

  it("shows the mutating webhook's patch with --show-mutations", async () => {
    const unnamed = helmModule();
    delete unnamed.spec.helm?.releaseName;
    const dir = manifestDir({ "m.yaml": [unnamed] });
    const plain = await validateCli(["-f", join(dir, "m.yaml")]);
    assert.doesNotMatch(plain.stdout, /patch/);
    const run = await validateCli(["-f", join(dir, "m.yaml"), "--show-mutations", "-o", "json"]);
    const { mutations } = JSON.parse(run.stdout) as {
      mutations: { object: string; patch: { op: string; path: string; value: string }[] }[];
    };
    assert.equal(mutations[0]?.object, "Module default/redis");
    assert.deepEqual(
      mutations[0]?.patch.map((op) => [op.op, op.path]),
      [["add", "/spec/helm/releaseName"]],
    );
    assert.match(mutations[0]?.patch[0]?.value ?? "", /^default-[a-z0-9]{11}$/);
  });
});

describe("validate: exit status and errors for bad input", () => {
  it("exits 2 naming the reason for a missing file, a YAML syntax error and bad options", async () => {
    const dir = manifestDir({ "broken.yaml": "apiVersion: v1\nkind: Module\nspec: [unclosed\n" });
    const missing = await validateCli(["-f", join(dir, "absent.yaml")]);
    assert.equal(missing.status, 2);
    assert.ok(missing.stdout.startsWith(`${join(dir, "absent.yaml")}: no such file or directory\n`));
    const broken = await validateCli(["-f", join(dir, "broken.yaml")]);
    assert.equal(broken.status, 2);
    assert.match(broken.stdout, new RegExp(`^${join(dir, "broken.yaml")}:\\d+: `));
    assert.equal((await validateCli([])).status, 2);
    assert.match(
      (await validateCli(["-f", dir, "-o", "xml"])).stderr,
      /argument 'xml' is invalid. Allowed choices are text, json, sarif/,
    );
    const bogus = await validateCli(["-f", dir, "--strcit"]);
    assert.equal(bogus.status, 2);
    assert.match(bogus.stderr, /unknown option '--strcit'\n\(Did you mean --strict\?\)/);
  });

  it("exits 0, 1 and 2 from the real command line", () => {
    const dir = manifestDir({ "good.yaml": [helmModule(), customModule()], "bad.yaml": [badModule()] });
    const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", main, "validate", ...args], {
        encoding: "utf8",
        input: multiDocument,
      });
    const good = cli("-f", join(dir, "good.yaml"));
    assert.equal(good.status, 0, good.stderr);
    assert.equal(
      good.stdout,
      "1 file, 2 objects read; 2 checked (0 denied, 0 warned); 0 skipped; judged as a GitOps tool sends it\nnot checked: module.workspace-exists (2 objects): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR\n",
    );
    const bad = cli("-f", join(dir, "good.yaml"), "-f", join(dir, "bad.yaml"));
    assert.equal(bad.status, 1, bad.stderr);
    assert.match(
      bad.stdout,
      /bad\.yaml:\d+: Module default\/redis: spec\.config\.replicas: Invalid value: 7/,
    );
    const piped = cli("-f", "-");
    assert.equal(piped.status, 1);
    const unreadable = cli("-f", join(dir, "nope.yaml"));
    assert.equal(unreadable.status, 2);
    assert.match(unreadable.stdout, /nope\.yaml: no such file or directory/);
  });
});

describe("validate --output sarif", () => {
  const require = createRequire(import.meta.url);
  const sarifSchemaPath = require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json");
  const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats.default(ajv as never);
  const checkSarif = ajv.compile(JSON.parse(readFileSync(sarifSchemaPath, "utf8")));

  it("validates against the SARIF 2.1.0 JSON schema, each result on the offending YAML line", async () => {
    const dir = manifestDir({ "modules.yaml": multiDocument });
    const file = join(dir, "modules.yaml");
    const run = await validateCli(["-f", file, "-o", "sarif"]);
    assert.equal(run.status, 1);
    const sarif = JSON.parse(run.stdout) as {
      runs: {
        results: {
          message: { text: string };
          locations: {
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
          }[];
        }[];
      }[];
    };
    assert.equal(checkSarif(sarif), true, JSON.stringify(checkSarif.errors, null, 2));
    const results = sarif.runs[0]?.results ?? [];
    const replicas = results.find((r) => r.message.text.includes("spec.config.replicas"));
    const third = lineOf(multiDocument, "name: redis") - 1;
    assert.equal(
      replicas?.locations[0]?.physicalLocation.region.startLine,
      lineOf(multiDocument, "replicas: 7", third),
    );
    // Outside the working directory: an absolute file: URI.
    assert.equal(replicas?.locations[0]?.physicalLocation.artifactLocation.uri, pathToFileURL(file).href);
  });

  it("stays valid SARIF for stdin and for paths with spaces", async () => {
    const dir = manifestDir({ "my modules.yaml": multiDocument });
    for (const run of [
      await validateCli(["-f", "-", "-o", "sarif"], multiDocument),
      await validateCli(["-f", join(dir, "my modules.yaml"), "-o", "sarif"]),
    ]) {
      assert.equal(checkSarif(JSON.parse(run.stdout)), true, JSON.stringify(checkSarif.errors));
    }
  });

  it("rejects what is not SARIF, so the check above can fail", () => {
    assert.equal(checkSarif({ version: "2.1.0", runs: [{ results: [] }] }), false);
  });
});

describe("schema command", () => {
  it("prints the generated editor schema for the kind, and exits 2 for an unknown kind", () => {
    const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
    const run = spawnSync(process.execPath, ["--import", "tsx", main, "schema", "Module"], {
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    const committed = readFileSync(
      new URL("../../schemas/editor/module.schema.json", import.meta.url),
      "utf8",
    );
    assert.equal(run.stdout, committed);
    const unknown = spawnSync(process.execPath, ["--import", "tsx", main, "schema", "Gadget"], {
      encoding: "utf8",
    });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no kind "Gadget": kinds are Module/);
  });
});
