import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { type Socket, connect as tcpConnect } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  type MetricsServer,
  registryCollector,
  startMetricsServer,
  WebhookMetrics,
} from "../../src/server/metrics.js";
import { firstAnswer, openRaw, type RawConnection, requestHead, type Target } from "../support/attacker.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";

/** A plain GET on a fresh connection to the metrics listener, as the kubelet probes: status and text. */
function probe(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("connections: idle keep-alive ones make room, probes on their own listener (issue 41)", {
  timeout: 120_000,
}, () => {
  const cap = 20;
  let server: LiveServer;
  let target: Target;
  let metricsServer: MetricsServer;
  before(async () => {
    server = await startLiveServer(undefined, {
      timeouts: { keepAliveMs: 120_000, silentMs: 60_000 },
      maxConnections: cap,
    });
    target = { port: server.running.port, ca: server.ca };
    metricsServer = await startMetricsServer(
      0,
      registryCollector(new WebhookMetrics().registry),
      "127.0.0.1",
      server.running.readiness,
    );
  });
  after(async () => {
    await metricsServer.close();
    await server.close();
  });

  it("at the cap, closes the keep-alive connection idle the longest so that a fresh one is served", async () => {
    const idle: RawConnection[] = [];
    for (let i = 0; i < cap; i++) {
      const connection = await openRaw(target);
      connection.socket.write(requestHead("GET", "/healthz", {}));
      assert.equal((await firstAnswer(connection)).status, 200);
      idle.push(connection);
    }
    try {
      const fresh = await openRaw(target);
      fresh.socket.write(requestHead("GET", "/readyz", {}));
      const answer = await firstAnswer(fresh);
      fresh.socket.destroy();
      assert.equal(answer.status, 200);
      await idle[0]?.closed;
      assert.equal(idle.at(-1)?.isClosed(), false, "the most recently used stays open");
    } finally {
      for (const connection of idle) connection.socket.destroy();
    }
  });

  it("answers /healthz and /readyz on the metrics listener, and reads no body there", async () => {
    assert.deepEqual(await probe(metricsServer.port, "/healthz"), { status: 200, text: "ok" });
    assert.deepEqual(await probe(metricsServer.port, "/readyz"), { status: 200, text: "ok" });
    const socket = tcpConnect(metricsServer.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("error", () => {});
    socket.write("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n");
    await new Promise((resolve) => socket.once("close", resolve));
    assert.match(answer, /^HTTP\/1\.1 405 [\s\S]*connection: close/i);
  });

  it("lets a probe in past 200 idle connections on the metrics listener", async () => {
    const flood: Socket[] = [];
    for (let i = 0; i < 200; i++) {
      const socket = tcpConnect(metricsServer.port, "127.0.0.1");
      socket.on("error", () => {});
      await new Promise((resolve) => socket.once("connect", resolve));
      // Each has begun a request, so that none is closed as silent: the cap alone makes room.
      socket.write("GET /healthz HTTP/1.1\r\n");
      flood.push(socket);
    }
    try {
      assert.deepEqual(await probe(metricsServer.port, "/readyz"), { status: 200, text: "ok" });
    } finally {
      for (const socket of flood) socket.destroy();
    }
  });
});
