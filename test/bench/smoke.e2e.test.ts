import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";

/**
 * `npm run bench -- --smoke`: the benchmark still runs end to end (figures from so short a run mean nothing).
 * npm test: runs alone (it loads every core)
 */
describe("npm run bench --smoke", { skip: withoutCorpus }, () => {
  it("measures every server and scenario at a fixed rate and at saturation, the p99 at a fixed rate, the soak and validate offline (against kubeconform too), and writes results", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "bench-smoke-")), "results.json");
    await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "bench/run.ts", "--smoke", "--out", out],
      {
        maxBuffer: 1 << 20,
      },
    );
    const results = JSON.parse(readFileSync(out, "utf8"));
    assert.equal(results.smoke, true);
    // A fixed rate and saturation, each with every server and scenario.
    assert.deepEqual(
      results.byRate.map((atRate: { rate: unknown }) => atRate.rate),
      [1000, "saturation"],
    );
    for (const atRate of results.byRate) {
      assert.deepEqual(
        atRate.rows.map((row: { id: string }) => row.id),
        [
          "bare",
          "floor",
          "express",
          ...(withoutGo ? [] : ["go-decode", "controller-runtime"]),
          "worker-floor",
          "protocol",
          "validate",
          "mutate",
          "update",
          "moduletemplate",
          "configmap",
        ],
      );
      // Without Go the peers are not measured, and the results say so rather than pass them.
      assert.equal(atRate.versusControllerRuntime.validate === null, Boolean(withoutGo));
      assert.equal(atRate.versusGoDecode === null, Boolean(withoutGo));
      if (!withoutGo) assert.ok(atRate.versusControllerRuntime.update.ratio > 0);
      // What module-admission costs beyond the least isolated webhook: always measured.
      assert.ok(atRate.versusWorkerFloor.ratio > 0);
      for (const row of atRate.rows) {
        assert.ok(row.cpuMicrosPerReview > 0 && row.capacityPerCore > 0, `${row.id} used no CPU`);
      }
      assert.equal(atRate.rows.find((row: { id: string }) => row.id === "floor").ratioToFloor, 1);
    }
    assert.equal(results.met.controllerRuntime === null, Boolean(withoutGo));
    assert.ok(results.latency.floorP99Ms > 0 && results.latency.moduleAdmissionP99Ms > 0);
    assert.equal(results.soak.failed, 0);
    assert.equal(results.offline.manifests, 300);
    // Four problems, one finding: the release name's CEL error, after which the API server calls no
    // validating webhook (and validate, judging as it does, reports none of the webhook's).
    assert.equal(results.offline.findings, 30, "one Module in ten denied, with one finding");
    assert.ok(results.offline.cpuRatioToParseOnly > 0 && results.offline.parseOnlyCpuSeconds > 0);
    // kubeconform on the same files and schemas: measured where Go builds it, else said not measured.
    const versusKubeconform = results.offline.versusKubeconform;
    assert.equal(versusKubeconform.measured, !withoutGo);
    assert.equal(results.met.offlineKubeconform === null, Boolean(withoutGo));
    if (!withoutGo) {
      assert.match(versusKubeconform.summary, /300 resources found .* Skipped: 0/);
      assert.ok(versusKubeconform.kubeconformCpuSeconds > 0 && versusKubeconform.cpuRatio > 0);
    }
    assert.ok(
      results.soak.heapAfterGcMiB.every((mib: number) => mib > 0),
      "the server reports its heap after GC",
    );
  });
});
