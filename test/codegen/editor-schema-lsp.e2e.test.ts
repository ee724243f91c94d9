import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { dump, loadAll } from "js-yaml";
import type { Finding } from "../../src/base/finding.js";
import { manifestDir } from "../support/cli.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { customModule, helmModule } from "../support/modules.js";
import { buildCommand } from "../support/serve-process.js";
import { workspace } from "../support/workspaces.js";
import { type Diagnostic, YamlLanguageServer } from "../support/yaml-language-server.js";

/**
 * The editor schemas in a real editor's language server (yaml-language-server over LSP), associated
 * with every YAML file of a repository as docs/ci.md says, on the files a repository holds: Modules,
 * Workspaces and other kinds side by side, and a kustomization.yaml; what `validate` finds in a bad
 * Module, found in the editor too; and the corpus's real objects, which the editor must not flag where
 * `validate` accepts them.
 */

const kustomization =
  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [modules.yaml]\n";
const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: { replicas: 2 },
};

const kinds = ["Module", "Workspace", "ModuleTemplate", "ModuleReleaseMeta"] as const;

let main = "";
let repo = "";
let dispatching: YamlLanguageServer;
/** No association in the settings: only a file's modeline names its schema. */
let unassociated: YamlLanguageServer;
/** One server per kind, its schema alone associated with every file. */
const kindOnly = new Map<string, YamlLanguageServer>();

before(async () => {
  main = buildCommand();
  repo = manifestDir({});
  // The schema files as a user makes them, with the built command.
  for (const [file, args] of [
    ["module-admission.schema.json", []],
    ...kinds.map((kind) => [`${kind}.schema.json`, [kind]] as const),
  ] as const) {
    const run = spawnSync(process.execPath, [main, "schema", ...args], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    writeFileSync(join(repo, file), run.stdout);
  }
  // Where docs/ci.md's recipe puts it: `npx module-admission schema > schemas/module-admission.schema.json`.
  mkdirSync(join(repo, "schemas"));
  copyFileSync(
    join(repo, "module-admission.schema.json"),
    join(repo, "schemas/module-admission.schema.json"),
  );
  unassociated = new YamlLanguageServer();
  await unassociated.start(repo, {});
  dispatching = new YamlLanguageServer();
  await dispatching.start(repo, { [`file://${join(repo, "module-admission.schema.json")}`]: ["*.yaml"] });
  for (const kind of kinds) {
    const server = new YamlLanguageServer();
    await server.start(repo, { [`file://${join(repo, `${kind}.schema.json`)}`]: ["*.yaml"] });
    kindOnly.set(kind, server);
  }
});

after(async () => {
  await dispatching?.stop();
  await unassociated?.stop();
  for (const server of kindOnly.values()) await server.stop();
});

const moduleOnly = () => kindOnly.get("Module") as YamlLanguageServer;

/** `validate -o json` with the built command: its findings. */
function validate(...paths: string[]): Finding[] {
  const run = spawnSync(process.execPath, [main, "validate", "-o", "json", ...paths], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
}

let opened = 0;
/** Opens the text as a new file of the repository (each once: a server publishes once per open). */
function diagnose(server: YamlLanguageServer, name: string, text: string): Promise<Diagnostic[]> {
  return server.diagnose(join(repo, `${opened++}-${name}`), text);
}

describe("editor schema in yaml-language-server", () => {
  it("underlines a bad Module: a misspelt field and a wrong type, on their lines", async () => {
    const module = helmModule();
    Object.assign(module.spec.helm ?? {}, { relaseName: "x" });
    Object.assign(module.spec, { workspace: 5 });
    const text = dump(module);
    const found = await diagnose(dispatching, "bad.yaml", text);
    const lines = text.split("\n");
    assert.deepEqual(
      found.map((d) => [lines[d.range.start.line]?.trim(), d.message]),
      [
        ["relaseName: x", "Property relaseName is not allowed."],
        ["workspace: 5", 'Incorrect type. Expected "WorkspaceReference".'],
      ],
    );
  });

  it("shows nothing on a valid file of several kinds, nor on a kustomization.yaml", async () => {
    const multi = [workspace(), customModule(), deployment, helmModule()].map((d) => dump(d)).join("---\n");
    assert.deepEqual(await diagnose(dispatching, "modules.yaml", multi), []);
    assert.deepEqual(await diagnose(dispatching, "kustomization.yaml", kustomization), []);
  });

  it("where the Module schema alone is associated, the same files show false errors (what this fixes)", async () => {
    const multi = [workspace(), customModule()].map((d) => dump(d)).join("---\n");
    assert.notDeepEqual(await diagnose(moduleOnly(), "modules.yaml", multi), []);
    assert.notDeepEqual(await diagnose(moduleOnly(), "kustomization.yaml", kustomization), []);
  });

  it("shows the three problems validate finds in a bad Module, on the same lines, with the rules' words", async () => {
    const bad = helmModule();
    Object.assign(bad.spec.helm ?? {}, { releaseName: "Redis_Main" });
    Object.assign(bad.spec, { custom: { image: "my-registry/custom-app:v1.0.0" } });
    const misnamed = { ...customModule(), kind: "Modul" };
    const text = [bad, misnamed].map((d) => dump(d)).join("---\n");
    const found = await diagnose(dispatching, "bad-module.yaml", text);
    const lines = text.split("\n");
    assert.deepEqual(
      found.map((d) => [lines[d.range.start.line]?.trim(), d.message]),
      [
        [
          "releaseName: Redis_Main",
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (rule module.release-name)",
        ],
        ["custom:", "may not be set together with spec.helm (rule module.source)"],
        ["kind: Modul", "not a kind batch.forkspacer.com/v1 serves: Module, Workspace"],
      ],
    );
    // validate's verdict on the same file: three errors, the field errors on the lines the editor
    // underlines (the kind's is about the whole object, placed at its first line).
    const dir = manifestDir({ "bad-module.yaml": text });
    const errors = validate(dir).filter((finding) => finding.severity === "error");
    assert.equal(errors.length, found.length, JSON.stringify(errors, null, 1));
    const fieldLines = errors.filter((finding) => finding.field).map((finding) => (finding.line ?? 0) - 1);
    assert.deepEqual(
      fieldLines.sort((a, b) => a - b),
      found.slice(0, 2).map((d) => d.range.start.line),
    );
    assert.match(errors.find((finding) => !finding.field)?.message ?? "", /Modul is not served/);
  });

  it("docs/ci.md's modeline names the same schema, for the document it heads", async () => {
    const bad = helmModule();
    Object.assign(bad.spec.helm ?? {}, { releaseName: "Redis_Main" });
    Object.assign(bad.spec, { custom: { image: "my-registry/custom-app:v1.0.0" } });
    const modeline = "# yaml-language-server: $schema=./schemas/module-admission.schema.json\n";
    const documents = [dump(bad), dump({ ...customModule(), kind: "Modul" })];
    const rules = (found: Diagnostic[]) =>
      found.map((d) => /\(rule ([a-z.-]+)\)$|not a kind/.exec(d.message)?.[0]);
    // In every document: the three problems.
    const everyDocument = documents.map((d) => `${modeline}${d}`).join("---\n");
    assert.deepEqual(rules(await diagnose(unassociated, "modeline.yaml", everyDocument)), [
      "(rule module.release-name)",
      "(rule module.source)",
      "not a kind",
    ]);
    // On the first line only: the first document's (yaml-language-server reads a modeline per document).
    const firstLine = `${modeline}${documents.join("---\n")}`;
    assert.deepEqual(rules(await diagnose(unassociated, "modeline-once.yaml", firstLine)), [
      "(rule module.release-name)",
      "(rule module.source)",
    ]);
    assert.deepEqual(await diagnose(unassociated, "plain.yaml", dump(bad)), [], "no modeline, no schema");
  });

  it("the fixed Module shows nothing", async () => {
    const fixed = helmModule();
    Object.assign(fixed.spec.helm ?? {}, { releaseName: "redis-main" });
    assert.deepEqual(await diagnose(dispatching, "fixed.yaml", dump(fixed)), []);
    assert.deepEqual(await diagnose(moduleOnly(), "fixed.yaml", dump(fixed)), []);
  });

  it("every kind's schema shows nothing on the corpus's objects that validate accepts, beyond validate's warnings", {
    skip: withoutCorpus,
  }, async () => {
    const dirs = [corpusPath("forkspacer/manifests"), corpusPath("kyma/moduletemplates")];
    const findings = validate(...dirs);
    let checked = 0;
    for (const dir of dirs) {
      for (const name of readdirSync(dir).filter((file) => file.endsWith(".yaml"))) {
        const path = join(dir, name);
        const ofFile = findings.filter((finding) => finding.file === path);
        if (ofFile.some((finding) => finding.severity === "error")) continue;
        // A line validate warns about (an unknown field it prunes) may be underlined; no other.
        const warned = new Set(ofFile.map((finding) => (finding.line ?? 0) - 1));
        const text = readFileSync(path, "utf8");
        const fileKinds = new Set(loadAll(text).map((doc) => (doc as { kind?: string } | null)?.kind));
        const servers = [dispatching];
        // A kind's schema alone is associated with files of that kind only (docs/ci.md).
        const [only] = fileKinds;
        if (fileKinds.size === 1 && kindOnly.has(only as string))
          servers.push(kindOnly.get(only as string) as YamlLanguageServer);
        for (const server of servers) {
          const shown = await diagnose(server, name, text);
          const unexplained = shown.filter((d) => !warned.has(d.range.start.line));
          assert.deepEqual(unexplained, [], `${name}: ${JSON.stringify(unexplained)}`);
          checked++;
        }
      }
    }
    // 100 of the corpus's 105 objects pass validate, in 96 of its 101 files.
    assert.ok(checked >= 180, `only ${checked} checks`);
  });
});
