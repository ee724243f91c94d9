import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseServeFlags } from "../../src/cli/serve.js";
import { semiSpaceFor } from "../../src/cli/serve-reviews.js";
import { largeSemiSpaceMb, smallSemiSpaceMb } from "../../src/isolation/review-pool.js";
import { httpGet, sample } from "../support/metrics-text.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { startServe } from "../support/serve-process.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
describe("module-admission serve", () => {
  it("rejects bad flag values naming the flag", () => {
    assert.throws(
      () => parseServeFlags(["--workers", "0"]),
      /--workers: "0" is not an integer from 1 to 256/,
    );
    assert.throws(
      () => parseServeFlags(["--metrics-port", "http"]),
      /--metrics-port: "http" is not an integer/,
    );
    assert.throws(() => parseServeFlags(["--drain-seconds", "-1"]), /--drain-seconds/);
    assert.throws(
      () => parseServeFlags(["--review-workers", "0"]),
      /--review-workers: "0" is not an integer from 1 to 64/,
    );
    assert.throws(
      () => parseServeFlags(["--worker-heap-mb", "8"]),
      /--worker-heap-mb: "8" is not an integer from 16/,
    );
    assert.throws(() => parseServeFlags(["--review-deadline-ms", "1.5"]), /--review-deadline-ms/);
    assert.throws(
      () => parseServeFlags(["--memory-budget", "1Gi"]),
      /--memory-budget: "1Gi" is not an integer/,
    );
    // The workers alone would fill it: refused before anything starts, naming the flags to change.
    const { pool } = parseServeFlags(["--review-workers", "4"]);
    assert.throws(
      () => semiSpaceFor(384, pool),
      /--memory-budget: 384 MiB is less than 4 review workers at their heap limit \(--review-workers 4, --worker-heap-mb 96: 128 MiB each\), one on standby and one 7 MiB review need \(551 MiB\)/,
    );
    // A budget the large young generation does not fit (a pod sized before it grew) still starts, with the small one.
    assert.equal(semiSpaceFor(384, parseServeFlags([]).pool), smallSemiSpaceMb);
    assert.equal(semiSpaceFor(512, parseServeFlags([]).pool), largeSemiSpaceMb);
    assert.deepEqual(parseServeFlags(["--metrics-bind-address", "127.0.0.1:9090"]).metrics, {
      host: "127.0.0.1",
      port: 9090,
    });
    assert.deepEqual(parseServeFlags(["--metrics-bind-address", ":8081"]).metrics, { port: 8081 });
    assert.deepEqual(parseServeFlags(["--metrics-bind-address", "[::1]:8080"]).metrics, {
      host: "::1",
      port: 8080,
    });
    assert.equal(parseServeFlags(["--metrics-bind-address", "0"]).metrics, undefined);
    assert.throws(
      () => parseServeFlags(["--metrics-bind-address", "8080"]),
      /--metrics-bind-address: "8080" is not \[HOST\]:PORT or 0/,
    );
    assert.deepEqual(parseServeFlags([]), {
      port: 8443,
      certDir: "certs",
      service: "module-admission",
      namespace: "module-admission",
      metrics: { port: 8080 },
      workers: 1,
      pool: { size: 2, heapMb: 96, deadlineMs: 1000 },
      memoryBudgetMb: 512,
      drainMs: 15000,
      graceMs: 25000,
      kubeconfig: undefined,
      workspaceCheck: "auto",
      moduleTemplateCheck: "auto",
      selfSignedSecret: undefined,
      webhookConfiguration: undefined,
      modulesDir: undefined,
      globalHooksDir: undefined,
      addonConfigMap: "addon-operator/addon-operator",
      ruleActions: new Map(),
      logReviews: "denied",
    });
    assert.equal(parseServeFlags(["--log-reviews", "all"]).logReviews, "all");
    assert.throws(
      () => parseServeFlags(["--log-reviews", "every"]),
      /--log-reviews: "every" is not one of denied, all, none/,
    );
    const flags = parseServeFlags([
      "--rule-action",
      "module.source=warn",
      "--rule-action",
      "module.links=off",
    ]);
    assert.deepEqual(
      [...flags.ruleActions],
      [
        ["module.source", "warn"],
        ["module.links", "off"],
      ],
    );
    assert.throws(() => parseServeFlags(["--rule-action", "module.source"]), /RULE-ID=deny\|warn\|off/);
  });

  it("--playground: off unless given; alone :8090, else [HOST]:PORT or a port; never the webhook's or the metrics' port", () => {
    assert.equal(parseServeFlags([]).playground, undefined);
    assert.deepEqual(parseServeFlags(["--playground"]).playground, { port: 8090 });
    assert.deepEqual(parseServeFlags(["--playground", "127.0.0.1:9000"]).playground, {
      host: "127.0.0.1",
      port: 9000,
    });
    assert.deepEqual(parseServeFlags(["--playground=9001"]).playground, { port: 9001 });
    assert.deepEqual(parseServeFlags(["--playground", ":0", "--port", "0"]).playground, { port: 0 });
    assert.throws(
      () => parseServeFlags(["--playground", ":8443"]),
      /--playground: port 8443 is the webhook's \(--port\): give it a port of its own/,
    );
    assert.throws(
      () => parseServeFlags(["--playground", "127.0.0.1:8080"]),
      /--playground: port 8080 is the metrics' \(--metrics-port\)/,
    );
    assert.throws(
      () => parseServeFlags(["--playground", "here"]),
      /--playground: "here" is not \[HOST\]:PORT/,
    );
    assert.throws(() => parseServeFlags(["--playground", ":70000"]), /--playground: ":70000"/);
  });

  it("exits 2 naming the flag that moves it when its port or its metrics port is taken, instead of serving half-started", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as AddressInfo;
    const serve = (ports: string[]) =>
      spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          "src/cli/main.ts",
          "serve",
          "--cert-dir",
          mkdtempSync(join(tmpdir(), "serve-taken-")),
          ...ports,
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
    try {
      const metrics = serve(["--port", "0", "--metrics-bind-address", `127.0.0.1:${port}`]);
      assert.equal(metrics.status, 2, metrics.stderr);
      assert.match(
        metrics.stderr,
        new RegExp(
          `module-admission: metrics port 127.0.0.1:${port} is already in use \\(listen EADDRINUSE\\): choose another with --metrics-port \\(or --metrics-bind-address\\)`,
        ),
      );
      const webhook = serve(["--port", String(port), "--metrics-bind-address", "0"]);
      assert.equal(webhook.status, 2, webhook.stderr);
      assert.match(
        webhook.stderr,
        new RegExp(
          `module-admission: --port ${port} is already in use \\(listen EADDRINUSE\\): choose another with --port`,
        ),
      );
    } finally {
      holder.close();
    }
  });

  it("with 2 workers: serves, sums metrics across workers, drains on SIGTERM without losing an in-flight request, exits 0", {
    timeout: 120_000,
  }, async () => {
    const certDir = mkdtempSync(join(tmpdir(), "module-admission-cli-"));
    const serve = await startServe(
      [
        "--port",
        "0",
        "--cert-dir",
        certDir,
        "--metrics-port",
        "0",
        "--workers",
        "2",
        "--drain-seconds",
        "3",
        "--grace-seconds",
        "30",
      ],
      2,
    );
    const ca = readFileSync(join(certDir, "ca.crt"), "utf8");
    const agent = new Agent({ ca, keepAlive: true });
    /** A POST whose body is sent in two parts; `finish` sends the second. */
    const post = (body: string, split = body.length) => {
      let finish: () => void = () => {};
      const reply = new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: serve.port,
            method: "POST",
            path: validatePath,
            agent,
            servername: "localhost",
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          },
        );
        req.on("error", reject);
        req.write(body.slice(0, split));
        finish = () => req.end(body.slice(split));
      });
      return { reply, finish };
    };
    const readyz = () =>
      new Promise<number>((resolve, reject) => {
        request(
          { host: "127.0.0.1", port: serve.port, path: "/readyz", ca, servername: "localhost" },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
          .on("error", reject)
          .end();
      });
    try {
      const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
      for (let i = 0; i < 4; i++) {
        const whole = post(body);
        whole.finish();
        assert.equal((await whole.reply).status, 200);
      }
      const metrics = await httpGet(serve.metricsPort, "/metrics");
      const requests = "controller_runtime_webhook_requests_total";
      assert.equal(sample(metrics.text, requests, { webhook: validatePath, code: "200" }), 4);
      // In flight on a keep-alive connection: headers and half the body sent when SIGTERM arrives.
      const inFlight = post(body, Math.floor(body.length / 2));
      serve.child.kill("SIGTERM");
      // Both workers draining (each logs it), not just the one a probe happens to reach: the request
      // in flight is on either, and one still serving would answer it keep-alive.
      await serve.logged((entry) => String(entry.msg).startsWith("shutting down: unready"), 2);
      assert.equal(await readyz(), 503);
      inFlight.finish();
      const reply = await inFlight.reply;
      assert.equal(reply.status, 200);
      assert.equal(reply.connection, "close");
      assert.equal(await serve.exited, 0);
      assert.ok(serve.logs.some((entry) => entry.msg === "all workers stopped" && entry.clean === true));
    } finally {
      agent.destroy();
      if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
    }
  });
});
