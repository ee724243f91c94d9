import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { validate } from "../../src/admission/handler.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { limits } from "../../src/base/limits.js";
import { hintsLeftOut } from "../../src/resources/module/config-values-rules.js";
import { moduleKind } from "../../src/resources/module/index.js";
import { deepJson, deepMarker, hostileModules } from "../support/hostile-modules.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { buildCommand, startServe } from "../support/serve-process.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const mutatePath = "/mutate-batch-forkspacer-com-v1-module";
const mib = 1024 * 1024;
const chartValues = new URL("../../charts/module-admission/values.yaml", import.meta.url);

/** The review's JSON as the API server would send it (the deep value spliced in as text). */
const bodyOf = (attack: { object: unknown; oldObject?: unknown }) =>
  JSON.stringify(
    admissionReview({
      operation: attack.oldObject ? "UPDATE" : "CREATE",
      object: attack.object,
      oldObject: attack.oldObject,
    }),
  ).replace(JSON.stringify(deepMarker), deepJson);

/** What each attack must get: the fields of its causes (the first few), or allowed. */
const expected: Record<string, (response: any) => void> = {
  "128 long regexes (compiled-regex cache)": (r) => {
    assert.equal(r.allowed, false);
    assert.match(
      r.status.details.causes[0].message,
      /compiles to about \d+ RE2 instructions, more than the 2000/,
    );
  },
  // Undeclared keys only warn (the operator ignores them): at most 50 warnings and one summary.
  "9,000 undeclared spec.config keys against 128 long aliases": (r) => {
    assert.equal(r.allowed, true);
    const undeclared = r.warnings.filter((w: string) => w.startsWith("spec.config"));
    assert.equal(undeclared.length, 51, `${undeclared.length} warnings`);
    assert.equal(undeclared.at(-1), "spec.config: 8950 more keys are not declared");
  },
  // The operator refuses every multipleOptions value: one cause, whatever the list holds.
  "20,000 bad multipleOptions choices": (r) => {
    assert.equal(r.status.code, 422);
    assert.equal(r.status.details.causes.length, 1);
    assert.match(r.status.details.causes[0].message, /\(rule module\.multiple-options-value\)$/);
  },
  "100 KB of `{` in a Helm value (template scan)": (r) => assert.equal(r.allowed, true),
  "a 10 KB undeclared key against 128 long aliases (did you mean)": (r) => {
    assert.equal(r.allowed, true);
    assert.doesNotMatch(r.warnings.join("\n"), /did you mean/);
  },
  "an 8,000-character value against a 980-character pattern": (r) => {
    assert.equal(r.status.code, 422);
    assert.equal(r.status.details.causes[0].field, "config[0].string.regex");
  },
  "a 1,999-instruction pattern against 128 values of 8,000 characters (matching budget)": (r) => {
    assert.equal(r.status.code, 422);
    const refused = r.status.details.causes.filter((c: { message: string }) =>
      /too long for this pattern/.test(c.message),
    );
    assert.ok(refused.length > 100 - 5, `${refused.length} refused`);
  },
  "10^6 wrong-typed items (amplification)": (r) => {
    assert.equal(r.status.code, 422);
    assert.equal(r.status.details.causes.length, 1);
    assert.equal(r.status.details.causes[0].field, "spec.config.m");
  },
  "2,000 aliases and 50 undeclared spec.config keys (did you mean, work budget)": (r) => {
    assert.equal(r.allowed, true);
    assert.ok(r.warnings.includes(hintsLeftOut), r.warnings.join("\n"));
  },
  "300 templates each printing a 1 MB config value (template output, work budget)": (r) => {
    assert.equal(r.status.code, 422);
    assert.equal(r.status.details.causes.length, 1);
    assert.match(r.status.details.causes[0].field, /^spec\.custom\.args\[\d+\]$/);
    assert.match(
      r.status.details.causes[0].message,
      /checking this template's output exceeds the webhook's work budget/,
    );
  },
  "300,000 wrong-typed spec.helm.migration.pvcs (structure errors)": (r) => {
    assert.equal(r.status.code, 422);
    const causes = r.status.details.causes;
    assert.equal(causes.length, limits.causes);
    assert.equal(causes[0].field, "spec.helm.migration.pvcs[0]");
    assert.equal(causes.at(-1).message, `... and ${300_000 - 99} more errors`);
  },
  "an UPDATE to 300,000 wrong-typed spec.helm.migration.pvcs (structure errors, four checks)": (r) => {
    assert.equal(r.status.code, 422);
    assert.equal(r.status.details.causes.at(-1).message, `... and ${300_000 - 99} more errors`);
  },
  "an object 5,000 levels deep": (r) => {
    assert.equal(r.status.code, 422);
    assert.match(r.status.details.causes[0].field, /^spec\.helm\.values\[0\]\.raw\.n\.n/);
    assert.match(r.status.details.causes[0].message, /nested more than 1000 levels deep/);
  },
  "UPDATE changing existingRelease of a Module stored before the 53-character limit": (r) => {
    assert.equal(r.allowed, false);
    assert.ok(
      r.status.details.causes.some((c: { field: string }) => c.field === "spec.helm.existingRelease"),
    );
  },
};

/** The server's resident memory, as the kernel counts it (a pod's memory limit applies to this). */
function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? Number.NaN) * 1024;
}

describe("hostile input against the live server (issue 15)", { timeout: 300_000 }, () => {
  // `serve` in its own process, compiled as users run it, so that its resident memory is its own.
  let serve: Awaited<ReturnType<typeof startServe>>;
  let baselineRss = 0;
  let agent: Agent;
  const post = (path: string, body: string) =>
    new Promise<{ status: number; text: string; json: any }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: serve.port,
          method: "POST",
          path,
          agent,
          servername: "localhost",
          headers: { "content-type": "application/json" },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            resolve({ status: res.statusCode ?? 0, text, json: JSON.parse(text) });
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  before(async () => {
    const certDir = mkdtempSync(join(tmpdir(), "module-admission-hostile-"));
    serve = await startServe(
      ["--port", "0", "--cert-dir", certDir, "--metrics-port", "0"],
      1,
      buildCommand(),
      // The main thread as in a pod run with this flag: an attack that exhausts a heap must end only its
      // review worker, never the process.
      ["--max-old-space-size=200"],
    );
    baselineRss = residentBytes(serve.child.pid ?? 0);
    agent = new Agent({ ca: readFileSync(join(certDir, "ca.crt")), keepAlive: true });
  });
  after(async () => {
    agent.destroy();
    serve.child.kill("SIGKILL");
    await serve.exited;
  });

  for (const attack of hostileModules()) {
    it(`answers ${attack.name} with a bounded, well-formed review, and a clean review meanwhile`, async (t) => {
      const body = bodyOf(attack);
      const uid = JSON.parse(body).request.uid;
      const clean = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
      const started = performance.now();
      const attackReply = post(validatePath, body);
      // Sent once the attack is on its way: it waits for the attack's review at worst.
      const cleanStarted = performance.now();
      const cleanReply = await post(validatePath, clean);
      const cleanMs = performance.now() - cleanStarted;
      const reply = await attackReply;
      const attackMs = performance.now() - started;
      assert.equal(reply.status, 200);
      assert.ok(reply.text.length <= limits.answerBytes, `${reply.text.length} bytes`);
      assert.equal(reply.json.kind, "AdmissionReview");
      assert.equal(reply.json.response.uid, uid);
      assert.ok((reply.json.response.status?.details?.causes?.length ?? 0) <= limits.causes);
      expected[attack.name]?.(reply.json.response);
      assert.equal(cleanReply.json.response.allowed, true);
      // Also through the mutating webhook, which diffs the whole object.
      const mutated = await post(mutatePath, body);
      assert.equal(mutated.json.response.uid, uid);
      t.diagnostic(
        `request ${(body.length / 1024).toFixed(0)} KiB, answer ${(reply.text.length / 1024).toFixed(1)} KiB in ${attackMs.toFixed(0)} ms; clean review meanwhile ${cleanMs.toFixed(0)} ms; server RSS ${(residentBytes(serve.child.pid ?? 0) / mib).toFixed(0)} MiB`,
      );
    });
  }

  // The pod's memory limit in the chart: the main thread, the review workers and one on standby.
  const podLimit = Number(/limits:\s+memory: (\d+)Mi/.exec(readFileSync(chartValues, "utf8"))?.[1]) * mib;

  it("leaves the server alive, its resident memory below the chart's pod limit after every attack", (t) => {
    assert.equal(serve.child.exitCode, null, "the server died");
    const rss = residentBytes(serve.child.pid ?? 0);
    t.diagnostic(
      `RSS ${(baselineRss / mib).toFixed(0)} MiB before the attacks, ${(rss / mib).toFixed(0)} MiB after`,
    );
    assert.ok(podLimit >= 256 * mib, "the pod limit was read from the chart");
    assert.ok(rss < podLimit, `${(rss / mib).toFixed(0)} MiB, limit ${podLimit / mib} MiB`);
  });
});

describe("hostile input: the cost of one review, unit by unit", () => {
  // Measured, not asserted (timing is not asserted in this project): reported in docs/performance.md.
  for (const attack of hostileModules()) {
    it(`judges ${attack.name}`, async (t) => {
      const request = JSON.parse(bodyOf(attack)).request as AdmissionRequest;
      const heapBefore = process.memoryUsage().heapUsed;
      const cpuBefore = process.cpuUsage();
      const response = await validate(moduleKind, request);
      const cpu = process.cpuUsage(cpuBefore);
      const heap = process.memoryUsage().heapUsed - heapBefore;
      expected[attack.name]?.(response);
      t.diagnostic(
        `CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, heap ${(heap / mib).toFixed(1)} MiB after`,
      );
    });
  }
});
