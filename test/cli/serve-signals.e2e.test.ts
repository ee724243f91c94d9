import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildCommand, startServe } from "../support/serve-process.js";

/** An idle keep-alive connection to the server, as a client that sent one request leaves it. */
async function idleConnection(port: number, certDir: string): Promise<Agent> {
  const agent = new Agent({ ca: readFileSync(join(certDir, "ca.crt"), "utf8"), keepAlive: true });
  await new Promise<void>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/readyz", servername: "localhost", agent },
      (res) => {
        res.resume();
        res.on("end", resolve);
      },
    );
    req.on("error", reject);
    req.end();
  });
  return agent;
}

describe("serve's signals: SIGINT is a person at a terminal, SIGTERM a pod's end", () => {
  const command = buildCommand();

  it("SIGINT with nothing in flight: exits 0 without the drain, an idle keep-alive connection notwithstanding", async () => {
    const certDir = mkdtempSync(join(tmpdir(), "serve-signals-"));
    // A drain far longer than any test: exiting at all shows SIGINT does not wait for it.
    const serve = await startServe(
      ["--port", "0", "--cert-dir", certDir, "--metrics-port", "0", "--drain-seconds", "600"],
      1,
      command,
    );
    const agent = await idleConnection(serve.port, certDir);
    serve.child.kill("SIGINT");
    assert.equal(await serve.exited, 0);
    agent.destroy();
    const messages = serve.logs.map((entry) => String(entry.msg));
    assert.ok(
      messages.some((msg) => msg.startsWith("interrupted: finishing the reviews in flight")),
      messages.join("\n"),
    );
    assert.ok(!messages.some((msg) => msg.startsWith("shutting down: unready")), messages.join("\n"));
  });

  it("SIGTERM keeps the drain of --drain-seconds, said in one log line", async () => {
    const certDir = mkdtempSync(join(tmpdir(), "serve-signals-"));
    const serve = await startServe(
      ["--port", "0", "--cert-dir", certDir, "--metrics-port", "0", "--drain-seconds", "1"],
      1,
      command,
    );
    serve.child.kill("SIGTERM");
    assert.equal(await serve.exited, 0);
    const drains = serve.logs.filter((entry) => String(entry.msg).startsWith("shutting down: unready"));
    assert.equal(drains.length, 1);
    assert.equal(drains[0]?.drainMs, 1000);
  });
});
