import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import { keepAliveLoad } from "../support/keep-alive-load.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { startServe } from "../support/serve-process.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";

/** A Module kind whose validation waits until the test releases it: requests stay in flight. */
function gatedKind() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived = 0;
  let allArrived = () => {};
  const expected = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  const kind: ResourceKind = {
    group: "batch.forkspacer.com",
    version: "v1",
    kind: "Module",
    validator: {
      validate: async () => {
        if (++arrived === 3) allArrived();
        await released;
        return { errors: [], warnings: [] };
      },
    },
  };
  return { kind, release, threeInFlight: expected };
}

function send(server: LiveServer, agent: Agent, method: string, path: string, body?: string) {
  return new Promise<{ status: number; connection?: string; json: unknown }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.running.port,
        method,
        path,
        agent,
        servername: "localhost",
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            json: res.headers["content-type"]?.includes("json") ? JSON.parse(text) : text,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("graceful shutdown", () => {
  it("drains: unready and Connection: close, in-flight requests on keep-alive connections all answered, clean exit", {
    timeout: 60_000,
  }, async () => {
    const gate = gatedKind();
    const server = await startLiveServer([gate.kind], { graceMs: 30_000 });
    const agent = new Agent({ ca: server.ca, keepAlive: true, maxSockets: 4 });
    try {
      // An idle keep-alive connection, as the API server keeps them.
      const before = await send(server, agent, "GET", "/readyz");
      assert.equal(before.status, 200);
      assert.equal(before.connection, "keep-alive");
      const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
      const inFlight = Array.from({ length: 3 }, () => send(server, agent, "POST", validatePath, body));
      await gate.threeInFlight;
      // The drain lasts until the probe below has been answered (an event; on a loaded machine its new
      // connection's handshake can outlast a short drain period).
      let probed = () => {};
      const stopped = server.running.shutdown(new Promise<void>((resolve) => (probed = resolve)));
      const draining = await send(server, agent, "GET", "/readyz");
      probed();
      assert.equal(draining.status, 503);
      assert.equal(draining.json, "shutting down");
      assert.equal(draining.connection, "close");
      gate.release();
      const replies = await Promise.all(inFlight);
      for (const reply of replies) {
        assert.equal(reply.status, 200);
        assert.equal((reply.json as { response: { allowed: boolean } }).response.allowed, true);
        assert.equal(reply.connection, "close");
      }
      assert.equal(await stopped, true, "every connection closed within the grace period");
      await assert.rejects(send(server, new Agent({ ca: server.ca }), "GET", "/healthz"), /ECONNREFUSED/);
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  it("cuts connections still busy when the grace period ends, and says the exit was not clean", {
    timeout: 60_000,
  }, async () => {
    const gate = gatedKind();
    const server = await startLiveServer([gate.kind], { drainMs: 0, graceMs: 300 });
    const agent = new Agent({ ca: server.ca, keepAlive: true });
    try {
      const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
      const inFlight = Array.from({ length: 3 }, () =>
        send(server, agent, "POST", validatePath, body).catch((error: Error) => error),
      );
      await gate.threeInFlight;
      assert.equal(await server.running.shutdown(), false);
      for (const outcome of await Promise.all(inFlight)) assert.ok(outcome instanceof Error);
    } finally {
      gate.release();
      agent.destroy();
      await server.close();
    }
  });

  // Issue 21: 4 of 25,243 requests were reset at shutdown under keep-alive load: the listener closed
  // (5 s) before the chart's readiness probe (5 s × 2) could route new connections away, and closing it
  // reset those in its backlog. Here the drain ends when the clients have seen readiness withdrawn (two
  // failed probes 50 ms apart) and stopped, an event rather than a period, so a loaded machine's slow
  // handshakes cannot make the race; that the chart's drain outlasts its probes is checked on the chart
  // (test/charts/drain-timing.test.ts).
  it("loses no request under keep-alive load: 16 clients, 20 shutdowns", { timeout: 180_000 }, async (t) => {
    const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
    let answered = 0;
    const lost: string[] = [];
    for (let run = 0; run < 20; run++) {
      const server = await startLiveServer(undefined, { graceMs: 60_000 });
      const load = keepAliveLoad({
        port: server.running.port,
        ca: server.ca,
        path: validatePath,
        body,
        clients: 16,
        probeMs: 50,
      });
      await load.started;
      const clean = await server.running.shutdown(load.quiet);
      const outcome = await load.stop();
      answered += outcome.answered;
      lost.push(...outcome.lost.map((error) => `run ${run}: ${error}`));
      assert.equal(clean, true, `run ${run}: not a clean shutdown`);
    }
    t.diagnostic(`${answered} answered, ${lost.length} lost`);
    assert.deepEqual(lost, []);
  });

  // Issue 41: 3 of 4,420 requests were reset at a SIGTERM under 16 keep-alive clients. The process as
  // it runs in the pod: a real SIGTERM, the drain of --drain-seconds, readiness probed on the metrics
  // listener as the chart's kubelet does; the clients stop once it is withdrawn, as a Service's would.
  it("loses no request at a real SIGTERM under 16 keep-alive clients, 3 times", {
    timeout: 300_000,
  }, async (t) => {
    const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
    let answered = 0;
    const lost: string[] = [];
    const codes: (number | null)[] = [];
    for (let run = 0; run < 3; run++) {
      const certDir = mkdtempSync(join(tmpdir(), "module-admission-sigterm-"));
      const serve = await startServe(
        [
          "--port",
          "0",
          "--cert-dir",
          certDir,
          "--metrics-bind-address",
          "127.0.0.1:0",
          "--drain-seconds",
          "3",
        ],
        1,
      );
      const load = keepAliveLoad({
        port: serve.port,
        ca: readFileSync(join(certDir, "ca.crt"), "utf8"),
        path: validatePath,
        body,
        clients: 16,
        probeMs: 50,
        probePort: serve.metricsPort,
      });
      await load.started;
      serve.child.kill("SIGTERM");
      const [outcome, code] = await Promise.all([load.stop(), serve.exited]);
      answered += outcome.answered;
      lost.push(...outcome.lost.map((error) => `run ${run}: ${error}`));
      codes.push(code);
    }
    t.diagnostic(`${answered} answered, ${lost.length} lost, exit codes ${codes.join(",")}`);
    assert.deepEqual(lost, []);
    assert.deepEqual(codes, [0, 0, 0]);
  });
});
