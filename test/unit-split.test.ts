import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * The unit/end-to-end split (docs/architecture.md, "How it is tested"): a file that starts a server or a
 * child process is `*.e2e.test.ts`. `npm run test:unit` runs every other file in one process, where a
 * server or a child process would be shared, slow, or left running; this keeps the two apart.
 */
const testDir = fileURLToPath(new URL(".", import.meta.url));

/** What starts a server or a process: the support modules that do, and node's own modules. */
const starters = [
  "node:child_process",
  "node:net",
  "node:cluster",
  "node:worker_threads",
  "createServer(",
  "support/live-server",
  "support/fake-kube-api",
  "support/control-plane",
  "support/apiserver-check",
  "support/chart-webhooks",
  "support/serve-process",
  "support/built-cli",
  "support/helm",
  "support/chart",
  "support/yaml-language-server",
  "support/keep-alive-load",
  "support/go-oracle",
  "support/chromium",
  "support/playground",
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const startsSomething = (text: string) => starters.filter((starter) => text.includes(starter));

describe("the unit/end-to-end split", () => {
  const files = testFiles(testDir);

  it("no unit file starts a server or a child process: such files are *.e2e.test.ts", () => {
    const unit = files.filter((file) => !file.endsWith(".e2e.test.ts"));
    assert.ok(unit.length > 40, `only ${unit.length} unit files`);
    const wrong = unit.flatMap((file) => {
      // This file names the starters without using them.
      if (file === fileURLToPath(import.meta.url)) return [];
      const found = startsSomething(readFileSync(file, "utf8"));
      return found.length > 0 ? [`${relative(testDir, file)}: ${found.join(", ")}`] : [];
    });
    assert.deepEqual(wrong, []);
  });

  it("the check sees an end-to-end file", () => {
    const e2e = files.filter((file) => file.endsWith(".e2e.test.ts"));
    assert.ok(e2e.filter((file) => startsSomething(readFileSync(file, "utf8")).length > 0).length > 30);
  });
});
