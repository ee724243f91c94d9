import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { apiServerCheckTool, toolDir, withoutGo } from "../support/go-tools.js";

/**
 * `npm run generate -- --check` needs one Go tool, kube-apiserver's validation (apiserver-check), not the
 * control plane the tests run: it builds or waits for that one only, and says so while it waits. Here a
 * lock this test holds, in a Go-tools cache of its own, stands for another process building it.
 */
const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm run generate -- --check while another process builds its Go tool", { skip: withoutGo }, () => {
  const cache = mkdtempSync(join(tmpdir(), "generate-go-tools-"));
  after(() => rmSync(cache, { recursive: true, force: true }));

  it("waits for apiserver-check alone, naming it, the time waited and the lock", async () => {
    const lock = join(cache, `${basename(toolDir(apiServerCheckTool))}.lock`);
    mkdirSync(lock);
    const generate = spawn(process.execPath, ["--import", "tsx", "src/cli/generate.ts", "--check"], {
      cwd: root,
      env: { ...process.env, MODULE_ADMISSION_GO_CACHE: cache },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = once(generate, "exit");
    const lines: string[] = [];
    try {
      const waiting = await new Promise<string>((resolve, reject) => {
        createInterface({ input: generate.stderr }).on("line", (line) => {
          // The first line from the Go-tools layer says what generate does about its tool: built, waited for.
          lines.push(line);
          resolve(line);
        });
        exited.then(([code]) =>
          reject(new Error(`generate exited ${code} before waiting:\n${lines.join("\n")}`)),
        );
      });
      assert.equal(
        waiting,
        `generate, checking the CRDs and policies with kube-apiserver's validation: apiserver-check: waiting for another process building ./apiserver-check (0 s so far; its lock: ${lock})`,
      );
    } finally {
      generate.kill("SIGKILL");
      await exited;
    }
    // Nothing else built, nor waited for: no control plane, no oracle, no helm.
    assert.deepEqual(readdirSync(cache), [basename(lock)]);
    assert.deepEqual(
      lines.filter((line) => !line.includes("apiserver-check")),
      [],
    );
  });
});
