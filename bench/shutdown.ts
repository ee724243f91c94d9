import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { keepAliveLoad } from "../test/support/keep-alive-load.js";
import { helmModule } from "../test/support/modules.js";
import { admissionReview } from "../test/support/reviews.js";
import { buildCommand, startServe } from "../test/support/serve-process.js";

/**
 * `npm run bench:shutdown`: SIGTERM under keep-alive load, as issue 21 found it (4 of 25,243 requests
 * reset). The built `serve`, a real SIGTERM, `--clients` keep-alive clients posting Module reviews
 * that stop as a Service would once readiness is withdrawn (a probe every `--probe-ms`, two failures).
 * `--runs` times; every request that gets no answer is lost. Exit 1 if any was.
 */
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    clients: { type: "string", default: "16" },
    "probe-ms": { type: "string", default: "1000" },
    "drain-seconds": { type: "string", default: "4" },
    "load-ms": { type: "string", default: "2000" },
  },
});
const runs = Number(values.runs);
const command = buildCommand();
const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
let answered = 0;
const lost: string[] = [];
let unclean = 0;
for (let run = 0; run < runs; run++) {
  const certDir = mkdtempSync(join(tmpdir(), "module-admission-shutdown-"));
  const serve = await startServe(
    ["--port", "0", "--cert-dir", certDir, "--metrics-port", "0", "--drain-seconds", values["drain-seconds"]],
    1,
    command,
  );
  const load = keepAliveLoad({
    port: serve.port,
    ca: readFileSync(join(certDir, "ca.crt"), "utf8"),
    path: "/validate-batch-forkspacer-com-v1-module",
    body,
    clients: Number(values.clients),
    probeMs: Number(values["probe-ms"]),
  });
  await load.started;
  await new Promise((resolve) => setTimeout(resolve, Number(values["load-ms"])));
  serve.child.kill("SIGTERM");
  const [outcome, code] = await Promise.all([load.stop(), serve.exited]);
  if (code !== 0) unclean++;
  answered += outcome.answered;
  lost.push(...outcome.lost.map((error) => `run ${run}: ${error}`));
  console.log(`run ${run + 1}: ${outcome.answered} answered, ${outcome.lost.length} lost, exit ${code}`);
}
console.log(
  `${runs} SIGTERMs, ${values.clients} keep-alive clients: ${answered} requests answered, ${lost.length} lost, ${unclean} unclean exits`,
);
for (const line of lost) console.log(`  ${line}`);
process.exitCode = lost.length + unclean > 0 ? 1 : 0;
