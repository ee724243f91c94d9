import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** A PATH with node and bash but no go: a folder of links to just those two. */
const bin = mkdtempSync(join(tmpdir(), "no-go-"));
symlinkSync(process.execPath, join(bin, "node"));
for (const tool of ["bash", "dirname", "env"]) {
  const found = spawnSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
  symlinkSync(found, join(bin, tool));
}
const { NODE_TEST_CONTEXT: _, ...parentEnv } = process.env;
const env = { ...parentEnv, PATH: bin };

describe("without Go", () => {
  it("the build step says in one line that the Go tests are skipped, and succeeds", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "test/support/build-go-tools.ts"], {
      cwd: root,
      env,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stderr.trim(),
      "go-tools: go not found on PATH: the control-plane, helm and oracle tests will be skipped",
    );
  });

  it(".ci/run fails at once, saying Go is required", () => {
    const run = spawnSync(join(bin, "bash"), [".ci/run"], {
      cwd: root,
      env: { ...env, MODULE_ADMISSION_CORPUS: dirname(root) },
      encoding: "utf8",
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr.trim(), /^\.ci\/run: Go is required .*: go not found on PATH$/);
    assert.equal(run.stdout, "", "nothing ran: no npm ci, no tests");
  });
});
