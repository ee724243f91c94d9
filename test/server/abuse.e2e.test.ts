import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { abuseRound, peakRssMiB } from "../support/abuse.js";
import type { Target } from "../support/attacker.js";
import { buildCommand, startServe } from "../support/serve-process.js";

/** The chart's pod: a 640 MiB memory limit, from which the chart derives --memory-budget 512. */
const podLimitMiB = 640;

/**
 * Issue 41's abuse harness, bounded: `serve` as the chart runs it (compiled, the default budget, a
 * 200 MiB main heap) under every class of attack at once, from a seeded generator: chunk floods and
 * random chunk sizes, pipelining, slow and partial bodies, idle connections, concurrent largest
 * reviews, wrong methods and paths with endless bodies; a clean review and a kubelet-style probe in
 * the middle of them. Asserted: counts and bytes (alive, peak RSS under the pod's limit, every clean
 * review admitted, every probe answered, every ended worker exited); times go to `npm run fuzz:abuse`.
 */
describe("abuse harness: serve under every attack at once stays alive, within its memory, and answers (issue 41)", {
  timeout: 300_000,
}, () => {
  let serve: Awaited<ReturnType<typeof startServe>>;
  let target: Target;
  before(async () => {
    const certDir = mkdtempSync(join(tmpdir(), "module-admission-abuse-"));
    serve = await startServe(
      ["--port", "0", "--cert-dir", certDir, "--metrics-bind-address", "127.0.0.1:0", "--drain-seconds", "0"],
      1,
      buildCommand(),
      ["--max-old-space-size=200"],
    );
    target = { port: serve.port, ca: readFileSync(join(certDir, "ca.crt")) };
  });
  after(async () => {
    serve.child.kill("SIGKILL");
    await serve.exited;
  });

  for (const seed of [41, 4101]) {
    it(`seed ${seed}: 300 idle connections, 20 partial bodies, 10 largest reviews and 12 random attacks at once`, async (t) => {
      const outcome = await abuseRound(target, serve.metricsPort, {
        seed,
        concurrent: 12,
        idle: 300,
        partial: 20,
        largest: 10,
      });
      const peak = peakRssMiB(serve.child.pid);
      t.diagnostic(`${JSON.stringify(outcome.sent)}; peak RSS ${peak} MiB`);
      assert.equal(serve.child.exitCode, null, "serve died");
      assert.equal(outcome.admitted, outcome.clean, "a clean review was not admitted");
      assert.equal(outcome.probesAnswered, outcome.probes, "a probe was not answered");
      assert.ok(peak < podLimitMiB, `peak RSS ${peak} MiB`);
      const ended = serve.logs.filter((log) => /outlasted its deadline/.test(String(log.msg))).length;
      await serve.logged((log) => /an ended review worker has exited/.test(String(log.msg)), ended);
    });
  }
});
