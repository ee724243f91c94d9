import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ConnectionOptions, connect } from "node:tls";
import { pairProblem } from "../../src/server/certificate-reloader.js";
import { certFiles, issueCertificates, serviceDnsNames } from "../../src/server/certificates.js";
import { defaultTimeouts } from "../../src/server/https-server.js";
import { WebhookMetrics } from "../../src/server/metrics.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { writeSecretVolume } from "../support/secret-volume.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const dnsNames = serviceDnsNames("module-admission", "module-admission");

/** The TLS handshake's outcome with the given client options: protocol, ALPN and certificate, or the error. */
function handshake(port: number, options: ConnectionOptions) {
  return new Promise<{
    protocol?: string | null;
    alpn?: string | false;
    fingerprint?: string;
    error?: Error;
  }>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, servername: "localhost", ...options }, () => {
      resolve({
        protocol: socket.getProtocol(),
        alpn: socket.alpnProtocol ?? false,
        fingerprint: socket.getPeerCertificate().fingerprint256,
      });
      socket.end();
    });
    socket.on("error", (error) => resolve({ error }));
  });
}

function postWith(agent: Agent, port: number, body: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: validatePath,
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
          resolve(res.statusCode === 200 && JSON.parse(text).response.allowed === true ? 200 : 0),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A certificate directory serving a first pair, and a second pair to rotate to. */
async function twoPairs(prefix: string) {
  const certDir = mkdtempSync(join(tmpdir(), prefix));
  const first = await issueCertificates(dnsNames);
  const second = await issueCertificates(dnsNames);
  writeFileSync(join(certDir, certFiles.cert), first.cert);
  writeFileSync(join(certDir, certFiles.key), first.key);
  writeFileSync(join(certDir, certFiles.ca), first.caCert);
  return { certDir, first, second };
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("TLS", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("refuses TLS 1.1 and older, speaks 1.2 and 1.3", async () => {
    const old = await handshake(server.running.port, {
      ca: server.ca,
      minVersion: "TLSv1",
      maxVersion: "TLSv1.1",
      ciphers: "DEFAULT@SECLEVEL=0",
    });
    assert.ok(old.error, "a TLS 1.1 handshake must fail");
    assert.equal(
      (await handshake(server.running.port, { ca: server.ca, maxVersion: "TLSv1.2" })).protocol,
      "TLSv1.2",
    );
    assert.equal((await handshake(server.running.port, { ca: server.ca })).protocol, "TLSv1.3");
  });

  it("speaks TLS 1.2 only with ECDHE and AES-GCM or ChaCha20, and refuses renegotiation", async () => {
    const tls12 = (ciphers: string) =>
      handshake(server.running.port, { ca: server.ca, maxVersion: "TLSv1.2", ciphers });
    // Each offered for both certificate key types (the generated certificate's may be either).
    const both = (suite: string) => `ECDHE-ECDSA-${suite}:ECDHE-RSA-${suite}`;
    for (const suite of ["AES128-GCM-SHA256", "AES256-GCM-SHA384", "CHACHA20-POLY1305"]) {
      assert.equal((await tls12(both(suite))).protocol, "TLSv1.2", suite);
    }
    for (const ciphers of [
      "AES128-GCM-SHA256:AES256-GCM-SHA384",
      both("AES128-SHA256"),
      both("AES128-SHA"),
      "DHE-RSA-AES128-GCM-SHA256",
    ]) {
      assert.ok((await tls12(ciphers)).error, `${ciphers} must be refused`);
    }
    const renegotiated = await new Promise<Error | null>((resolve) => {
      const socket = connect(
        {
          host: "127.0.0.1",
          port: server.running.port,
          servername: "localhost",
          ca: server.ca,
          maxVersion: "TLSv1.2",
        },
        () => {
          socket.renegotiate({}, (error) => {
            socket.destroy();
            resolve(error);
          });
        },
      );
      socket.on("error", (error) => resolve(error));
    });
    assert.ok(renegotiated, "the server must refuse to renegotiate");
  });

  it("does not offer HTTP/2", async () => {
    const h2Only = await handshake(server.running.port, { ca: server.ca, ALPNProtocols: ["h2"] });
    assert.ok(h2Only.error !== undefined || h2Only.alpn === false, `negotiated ${h2Only.alpn}`);
    const both = await handshake(server.running.port, { ca: server.ca, ALPNProtocols: ["h2", "http/1.1"] });
    assert.equal(both.alpn, "http/1.1");
  });

  it("uses controller-runtime's keep-alive (90 s), and bounds headers (10 s), requests (30 s) and connections", () => {
    assert.deepEqual(defaultTimeouts, {
      keepAliveMs: 90_000,
      headersMs: 10_000,
      requestMs: 30_000,
      silentMs: 3_000,
    });
    assert.equal(server.running.server.keepAliveTimeout, 90_000);
    assert.equal(server.running.server.headersTimeout, 10_000);
    assert.equal(server.running.server.requestTimeout, 30_000);
  });

  it("closes a keep-alive connection once it has been idle for the keep-alive timeout", async () => {
    const short = await startLiveServer(undefined, { timeouts: { keepAliveMs: 300 } });
    try {
      // A raw TLS socket, not an https.Agent: Node's agent drops an idle socket itself as soon as the
      // server's Keep-Alive hint (here timeout=0, whole seconds) runs out, and would close it first.
      const seen = await new Promise<{ head: string; idleMs: number; serverEnded: boolean }>(
        (resolve, reject) => {
          let text = "";
          let answeredAt = 0;
          let serverEnded = false;
          const socket = connect(
            { host: "127.0.0.1", port: short.running.port, servername: "localhost", ca: short.ca },
            () => socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n"),
          );
          socket.setEncoding("utf8");
          socket.on("data", (chunk: string) => {
            text += chunk;
            const [head = "", body = ""] = text.split("\r\n\r\n");
            const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN);
            if (answeredAt === 0 && body.length >= length) answeredAt = performance.now();
          });
          // "end": the server sent its FIN; this client never ends or destroys the socket itself.
          socket.on("end", () => {
            serverEnded = true;
          });
          socket.on("close", () =>
            resolve({
              head: text.split("\r\n\r\n")[0] ?? "",
              idleMs: performance.now() - answeredAt,
              serverEnded,
            }),
          );
          socket.on("error", reject);
        },
      );
      assert.match(seen.head, /^HTTP\/1\.1 200/);
      assert.match(seen.head, /\r\nConnection: keep-alive\r\n/i);
      assert.equal(seen.serverEnded, true, "the server closed the idle connection");
      // A timer never fires early: the connection was idle at least the timeout (less a timer's rounding).
      assert.ok(
        seen.idleMs >= 290,
        `closed after ${Math.round(seen.idleMs)} ms idle, before the 300 ms timeout`,
      );
    } finally {
      await short.close();
    }
  });
});

describe("certificate rotation", () => {
  it("serves a rotated Secret (symlink swap) without restart: no request fails, new connections get the new certificate", {
    timeout: 120_000,
  }, async () => {
    const certDir = mkdtempSync(join(tmpdir(), "module-admission-secret-"));
    const first = await issueCertificates(dnsNames);
    const second = await issueCertificates(dnsNames);
    const pem = (bundle: typeof first) => ({
      [certFiles.cert]: bundle.cert,
      [certFiles.key]: bundle.key,
      [certFiles.ca]: bundle.caCert,
    });
    writeSecretVolume(certDir, pem(first));
    const server = await startLiveServer(undefined, { certDir });
    const port = server.running.port;
    try {
      assert.equal((await handshake(port, { ca: first.caCert })).fingerprint, fingerprint(first.cert));
      // Both test CAs have the same name, so one client cannot trust both (OpenSSL picks a CA by name);
      // the load skips verification, and trust is checked with each CA alone before and after.
      const agent = new Agent({ rejectUnauthorized: false, keepAlive: true, maxSockets: 4 });
      const body = JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));
      let running = true;
      let answered = 0;
      const failures: unknown[] = [];
      const loops = Array.from({ length: 8 }, async () => {
        while (running) {
          await postWith(agent, port, body).then(
            (status) => (status === 200 ? answered++ : failures.push(status)),
            (error) => failures.push(error),
          );
        }
      });
      while (answered + failures.length < 50) await sleep(10);
      writeSecretVolume(certDir, pem(second));
      while (
        (await handshake(port, { rejectUnauthorized: false })).fingerprint !== fingerprint(second.cert)
      ) {
        await sleep(50);
      }
      const rotatedAt = answered;
      while (answered + failures.length < rotatedAt + 50) await sleep(10);
      running = false;
      await Promise.all(loops);
      agent.destroy();
      assert.deepEqual(failures, []);
      // A client that trusts only the new CA connects: the old certificate is gone for new connections.
      const fresh = new Agent({ ca: second.caCert });
      assert.equal(await postWith(fresh, port, body), 200);
      fresh.destroy();
    } finally {
      await server.close();
    }
  });

  it("keeps the old certificate while a new pair does not load, and takes the pair once it does", {
    timeout: 60_000,
  }, async () => {
    const { certDir, first, second } = await twoPairs("module-admission-files-");
    const logged: Record<string, unknown>[] = [];
    const server = await startLiveServer(undefined, { certDir, log: (entry) => logged.push(entry) });
    const port = server.running.port;
    const any = { rejectUnauthorized: false };
    try {
      // Half-way through an update that writes the files one by one: new certificate, old key.
      writeFileSync(join(certDir, certFiles.cert), second.cert);
      while (!logged.some((entry) => String(entry.msg).includes("does not load"))) await sleep(20);
      assert.equal((await handshake(port, any)).fingerprint, fingerprint(first.cert));
      assert.equal((await handshake(port, { ca: first.caCert })).error, undefined);
      writeFileSync(join(certDir, certFiles.key), second.key);
      while ((await handshake(port, any)).fingerprint !== fingerprint(second.cert)) await sleep(50);
      assert.ok(logged.some((entry) => entry.msg === "serving certificate reloaded"));
      assert.equal((await handshake(port, { ca: second.caCert })).error, undefined);
    } finally {
      await server.close();
    }
  });

  // Issue 21: an empty tls.key was installed (Node's createSecureContext takes it) and every new
  // handshake failed until the files were fixed.
  it("refuses an empty key, a foreign key and a certificate not valid now: the old pair serves on, logged and counted", {
    timeout: 60_000,
  }, async () => {
    const { certDir, first, second } = await twoPairs("module-admission-partial-");
    const logged: Record<string, unknown>[] = [];
    const metrics = new WebhookMetrics();
    const server = await startLiveServer(undefined, { certDir, metrics, log: (entry) => logged.push(entry) });
    const refusals = () => logged.filter((entry) => String(entry.msg).includes("does not load"));
    try {
      // Truncate-then-write, caught between the two.
      writeFileSync(join(certDir, certFiles.key), "");
      while (refusals().length === 0) await sleep(20);
      assert.equal(refusals()[0]?.error, "tls.key is empty");
      assert.equal((await handshake(server.running.port, { ca: first.caCert })).error, undefined);
      writeFileSync(join(certDir, certFiles.key), second.key);
      while (refusals().length < 2) await sleep(20);
      assert.equal(refusals()[1]?.error, "tls.key is not the key of tls.crt");
      assert.equal((await handshake(server.running.port, { ca: first.caCert })).error, undefined);
      const text = await metrics.registry.getSingleMetricAsString(
        "module_admission_certificate_reloads_total",
      );
      assert.match(text, /module_admission_certificate_reloads_total\{result="refused"\} 2/);
    } finally {
      await server.close();
    }
  });

  it("names what is wrong with a pair before it is swapped in", async () => {
    const pair = await issueCertificates(dnsNames, 1);
    const other = await issueCertificates(dnsNames);
    const now = Date.now();
    assert.equal(pairProblem(pair, now), undefined);
    assert.equal(pairProblem({ ...pair, cert: "" }, now), "tls.crt is empty");
    assert.equal(pairProblem({ ...pair, key: "\n" }, now), "tls.key is empty");
    assert.equal(pairProblem({ ...pair, key: other.key }, now), "tls.key is not the key of tls.crt");
    assert.match(
      pairProblem({ ...pair, key: pair.key.slice(0, 60) }, now) ?? "",
      /^tls\.key is not a private key/,
    );
    assert.match(pairProblem(pair, now + 3 * 86_400_000) ?? "", /^tls\.crt is not valid now: valid from /);
  });
});
