import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { withoutGo } from "../support/go-tools.js";

const root = new URL("../..", import.meta.url).pathname;

/**
 * `npm run generate` refuses to write a CRD whose CEL rule kube-apiserver would refuse (its estimated
 * cost over the server's limit): the schema sources of a copy of the project get one, and nothing changes.
 */
describe("npm run generate refuses a CEL rule the API server would refuse", { skip: withoutGo }, () => {
  it("writes nothing, and says what the API server says", () => {
    const copy = mkdtempSync(join(tmpdir(), "module-admission-generate-"));
    for (const dir of ["schemas", "charts", "docs", "src/generated", "test/support", "test/control-plane"])
      cpSync(join(root, dir), join(copy, dir), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
    const source = join(copy, "schemas/module.yaml");
    // A comparison of the unbounded namespace on every ExistingRelease: over the cost estimate's limit.
    writeFileSync(
      source,
      readFileSync(source, "utf8").replace(
        "    ExistingRelease:\n      title: ExistingRelease\n",
        `    ExistingRelease:
      title: ExistingRelease
      x-kubernetes-validations:
        - rule: "!has(self.namespace) || !(self.namespace.contains('{{') && self.namespace.contains('}}'))"
          message: a costly rule (rule module.existing-release-name)
`,
      ),
    );
    const crd = join(copy, "charts/module-admission/files/crds/modules.batch.forkspacer.com.yaml");
    const before = readFileSync(crd, "utf8");
    const run = spawnSync(process.execPath, ["--import", "tsx", join(root, "src/cli/generate.ts")], {
      cwd: copy,
      encoding: "utf8",
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /existingRelease\].x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget/,
    );
    assert.match(run.stderr, /nothing written/);
    assert.equal(readFileSync(crd, "utf8"), before);
  });
});

describe("npm run generate on a kind whose generated schema is missing (a new kind, registered)", {
  skip: withoutGo,
}, () => {
  it("reports it stale with --check, and writes it first without (the kinds are built from it)", () => {
    const copy = mkdtempSync(join(tmpdir(), "module-admission-generate-"));
    for (const dir of [
      "src",
      "schemas",
      "charts",
      "docs",
      "test/support",
      "test/control-plane",
      "package.json",
    ])
      cpSync(join(root, dir), join(copy, dir), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
    const schema = "schemas/dist/workspace.schema.json";
    rmSync(join(copy, schema));
    const generate = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", join(copy, "src/cli/generate.ts"), ...args], {
        cwd: copy,
        encoding: "utf8",
      });
    const checked = generate("--check");
    assert.equal(checked.status, 1, checked.stdout + checked.stderr);
    assert.equal(checked.stderr, `stale generated files (run npm run generate):\n  ${schema}\n`);
    const written = generate();
    assert.equal(written.status, 0, written.stdout + written.stderr);
    assert.match(written.stdout, /wrote schemas\/dist\/workspace.schema.json first/);
    assert.equal(readFileSync(join(copy, schema), "utf8"), readFileSync(join(root, schema), "utf8"));
    const again = generate("--check");
    assert.equal(again.status, 0, again.stdout + again.stderr);
  });
});
