import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { dump } from "js-yaml";
import { manifestDir } from "../support/cli.js";
import { customModule, helmModule } from "../support/modules.js";
import { buildCommand } from "../support/serve-process.js";
import { workspace } from "../support/workspaces.js";
import { type Diagnostic, YamlLanguageServer } from "../support/yaml-language-server.js";

/**
 * The editor schemas in a real editor's language server (yaml-language-server over LSP), associated
 * with every YAML file of a repository as docs/ci.md says, on the files a repository holds: Modules,
 * Workspaces and other kinds side by side, and a kustomization.yaml.
 */

const kustomization =
  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [modules.yaml]\n";
const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: { replicas: 2 },
};

let repo = "";
let dispatching: YamlLanguageServer;
let moduleOnly: YamlLanguageServer;

before(async () => {
  const main = buildCommand();
  repo = manifestDir({});
  // The schema files as a user makes them, with the built command.
  for (const [file, args] of [
    ["module-admission.schema.json", []],
    ["module.schema.json", ["Module"]],
  ] as const) {
    const run = spawnSync(process.execPath, [main, "schema", ...args], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    writeFileSync(join(repo, file), run.stdout);
  }
  dispatching = new YamlLanguageServer();
  await dispatching.start(repo, { [`file://${join(repo, "module-admission.schema.json")}`]: ["*.yaml"] });
  moduleOnly = new YamlLanguageServer();
  await moduleOnly.start(repo, { [`file://${join(repo, "module.schema.json")}`]: ["*.yaml"] });
});

after(async () => {
  await dispatching?.stop();
  await moduleOnly?.stop();
});

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
    assert.notDeepEqual(await diagnose(moduleOnly, "modules.yaml", multi), []);
    assert.notDeepEqual(await diagnose(moduleOnly, "kustomization.yaml", kustomization), []);
  });
});
