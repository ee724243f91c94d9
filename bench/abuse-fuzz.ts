import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { abuseRound, cleanReviewAnswered, peakRssMiB, probe } from "../test/support/abuse.js";
import { jsonType, rawRequest, requestHead } from "../test/support/attacker.js";
import { buildCommand, startServe } from "../test/support/serve-process.js";
import { stallingReviews } from "../test/support/stalling-reviews.js";

/**
 * `npm run fuzz:abuse`: issue 41's abuse harness, long. The built `serve` under the chart's memory
 * (the default --memory-budget 512, which the chart derives from its 640 MiB limit; a 200 MiB main
 * heap). First the "done when" load: 40 concurrent largest reviews, a chunk flood and 2,000 idle
 * connections at once, with a probe on a fresh connection and a clean review in the middle (peak RSS
 * and the clean review's latency reported). Then `--rounds` random rounds. Fails (exit 1) when serve
 * dies, its peak RSS reaches the pod's 640 MiB, a clean review is not admitted, a probe is not
 * answered, or an ended worker outlives its end by more than `--exit-bound-ms`.
 */
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "10" },
    seed: { type: "string", default: String(Date.now() % 100_000) },
    "exit-bound-ms": { type: "string", default: "2000" },
  },
});
const podLimitMiB = 640;
const certDir = mkdtempSync(join(tmpdir(), "module-admission-abuse-fuzz-"));
const serve = await startServe(
  ["--port", "0", "--cert-dir", certDir, "--metrics-bind-address", "127.0.0.1:0", "--drain-seconds", "0"],
  1,
  buildCommand(),
  ["--max-old-space-size=200"],
);
const target = { port: serve.port, ca: readFileSync(join(certDir, "ca.crt")) };
const failures: string[] = [];
const check = (what: string, ok: boolean) => {
  if (!ok) failures.push(what);
};
console.log(`serve started: peak RSS ${peakRssMiB(serve.child.pid)} MiB`);

const doneWhen = await abuseRound(target, serve.metricsPort, {
  seed: 1,
  concurrent: 0,
  idle: 2_000,
  partial: 0,
  largest: 40,
  floods: 1,
});
const donePeak = peakRssMiB(serve.child.pid);
const after = await cleanReviewAnswered(target);
console.log(
  `done-when load (2,000 idle connections held, then 40 largest reviews and a chunk flood at once): peak RSS ${donePeak} MiB; ` +
    `probe on a fresh connection during it ${doneWhen.probesAnswered}/${doneWhen.probes}; clean review during it admitted ${doneWhen.admitted}/${doneWhen.clean} in ${doneWhen.cleanMs.map((ms) => ms.toFixed(0)).join(",")} ms; ` +
    `clean review after it admitted ${after.admitted} in ${after.ms.toFixed(0)} ms`,
);
check("done-when: peak RSS", donePeak < podLimitMiB);
check(
  "done-when: probe",
  doneWhen.probesAnswered === doneWhen.probes && (await probe(serve.metricsPort)) === 200,
);
check("done-when: clean review", doneWhen.admitted === doneWhen.clean && after.admitted);

const seed = Number(values.seed);
for (let round = 0; round < Number(values.rounds); round++) {
  const outcome = await abuseRound(target, serve.metricsPort, {
    seed: seed + round,
    concurrent: 40,
    idle: 500,
    partial: 50,
    largest: 20,
  });
  // One of issue 32's stalling reviews per round: some run into the deadline and end their worker,
  // whose exit after its end is measured below.
  const stalling = stallingReviews();
  const { kind, review } = stalling[(seed + round) % stalling.length] as (typeof stalling)[number];
  const stallingPath = `/validate-${kind === "ModuleTemplate" ? "operator-kyma-project-io-v1beta2" : "batch-forkspacer-com-v1"}-${kind.toLowerCase()}`;
  const stallingBody = Buffer.from(JSON.stringify(review));
  const stalled = await rawRequest(
    target,
    requestHead("POST", stallingPath, { ...jsonType, "Content-Length": stallingBody.length }),
    stallingBody,
  );
  check(`round ${round}: stalling review answered`, stalled.status === 200);
  const peak = peakRssMiB(serve.child.pid);
  console.log(
    `round ${round} (seed ${seed + round}): ${JSON.stringify(outcome.sent)}; peak RSS ${peak} MiB; clean ${outcome.admitted}/${outcome.clean} in ${outcome.cleanMs.map((ms) => ms.toFixed(0)).join(",")} ms; probes ${outcome.probesAnswered}/${outcome.probes}`,
  );
  check(`round ${round}: alive`, serve.child.exitCode === null);
  check(`round ${round}: peak RSS`, peak < podLimitMiB);
  check(`round ${round}: clean review`, outcome.admitted === outcome.clean);
  check(`round ${round}: probe`, outcome.probesAnswered === outcome.probes);
}
const exits = serve.logs
  .filter((log) => log.exitedAfterMs !== undefined)
  .map((log) => Number(log.exitedAfterMs));
const ended = serve.logs.filter((log) => /outlasted its deadline/.test(String(log.msg))).length;
console.log(`workers ended at their deadline: ${ended}; exited after (ms): ${exits.join(",") || "none"}`);
check("every ended worker exited", exits.length === ended);
check(
  "ended workers exit within the bound",
  exits.every((ms) => ms <= Number(values["exit-bound-ms"])),
);
serve.child.kill("SIGKILL");
await serve.exited;
console.log(failures.length === 0 ? "ok" : `FAILED: ${failures.join("; ")}`);
process.exitCode = failures.length === 0 ? 0 : 1;
