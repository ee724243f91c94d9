import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const testDir = join(root, "test");
/** A corpus that is not there: an empty temporary directory's missing child. */
const hidden = join(mkdtempSync(join(tmpdir(), "no-corpus-")), "shared");
// Without NODE_TEST_CONTEXT, which \`node --test\` sets for the files it runs: the child would report to it.
const { NODE_TEST_CONTEXT: _, ...parentEnv } = process.env;
const env = { ...parentEnv, MODULE_ADMISSION_CORPUS: hidden };

/** The unit test files that read the corpus (through test/support/corpus.ts). */
function corpusUnitFiles(dir = testDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return corpusUnitFiles(path);
    const unit = entry.name.endsWith(".test.ts") && !entry.name.endsWith(".e2e.test.ts");
    return unit && readFileSync(path, "utf8").includes("support/corpus.js") ? [relative(testDir, path)] : [];
  });
}

describe("without the corpus", () => {
  it("the corpus tests are reported as skipped, saying where the corpus is expected, and nothing fails", () => {
    const files = corpusUnitFiles();
    assert.ok(files.length >= 6, `only ${files.length} corpus unit files: ${files.join(", ")}`);
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "--test-reporter=tap", "test/support/run-unit.ts", ...files],
      { cwd: root, env, encoding: "utf8", maxBuffer: 16 << 20 },
    );
    assert.equal(run.status, 0, `${run.stdout.slice(-3000)}\n${run.stderr}`);
    const line = `# SKIP corpus not found at ${hidden} (expected beside the project, or MODULE_ADMISSION_CORPUS): skipped`;
    const skipped = run.stdout.split("\n").filter((l) => l.endsWith(line));
    assert.ok(skipped.length >= files.length, `${skipped.length} skipped for ${files.length} files`);
    assert.match(run.stdout, /^# fail 0$/m);
    assert.match(run.stdout, /^# pass [1-9]\d*$/m, "the tests that need no corpus still run");
  });

  it(".ci/run fails at once, saying where it looked", () => {
    const run = spawnSync("bash", [".ci/run"], { cwd: root, env, encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr.trim(),
      `.ci/run: the corpus is required: not found at ${hidden} (expected beside the project, or set MODULE_ADMISSION_CORPUS)`,
    );
    assert.equal(run.stdout, "", "nothing ran: no npm ci, no tests");
  });
});
