import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { type ClusterFeatures, prepareClusterFeatures } from "../../src/cli/serve-cluster.js";
import { startSelfSignedCertificates } from "../../src/kube/self-signed-certificates.js";
import { serviceDnsNames } from "../../src/server/certificates.js";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, startFakeKubeApi } from "../support/fake-kube-api.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { customModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { workspace, workspaceCrd } from "../support/workspaces.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const workspacesPath = "/apis/batch.forkspacer.com/v1/workspaces";
const dnsNames = serviceDnsNames("module-admission", "module-admission");
const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

async function verdict(server: LiveServer, object = customModule()) {
  const reply = await server.post(validatePath, admissionReview({ operation: "CREATE", object }));
  assert.equal(reply.status, 200);
  return reply.json.response;
}

describe("serve with a kubeconfig: the spec.workspace check over HTTPS (fake API server)", () => {
  let api: FakeKubeApi;
  let cluster: ClusterFeatures;
  let server: LiveServer;
  let logs: Record<string, unknown>[];
  let releaseList: () => void;

  before(async () => {
    api = await startFakeKubeApi();
    api.put(workspaceCrd);
    releaseList = api.hold((r) => r.path === workspacesPath && r.query.get("watch") !== "true").release;
    logs = [];
    const certDir = tempDir("serve-cluster-");
    cluster = await prepareClusterFeatures({
      kubeconfig: api.kubeconfigPath,
      workspaceCheck: "auto",
      certDir,
      dnsNames,
      log: (fields) => logs.push(fields),
    });
    server = await startLiveServer(undefined, {
      lookups: cluster.lookups,
      isReady: cluster.isReady,
      certDir,
    });
  });
  after(async () => {
    await server.close();
    await cluster.stop();
    await api.close();
  });

  it("is not ready until the Workspace cache has synced", async () => {
    assert.equal((await server.get("/readyz")).status, 503);
    releaseList();
    await eventually("readyz answers 200", async () => (await server.get("/readyz")).status === 200);
    assert.ok(logs.some((l) => String(l.msg).includes(`cluster access from ${api.kubeconfigPath}`)));
  });

  it("denies a Module whose Workspace does not exist, naming the field", async () => {
    await eventually("synced", async () => (await server.get("/readyz")).status === 200);
    const response = await verdict(server);
    assert.equal(response.allowed, false);
    assert.equal(response.status.code, 422);
    assert.equal(
      response.status.message,
      'Module.batch.forkspacer.com "custom-app" is invalid: spec.workspace: Not found: "default/dev-environment"',
    );
    assert.deepEqual(response.status.details.causes, [
      {
        reason: "FieldValueNotFound",
        field: "spec.workspace",
        message: 'Not found: "default/dev-environment" (rule module.workspace-exists)',
      },
    ]);
  });

  it("admits it once the watch delivers the Workspace, denies it again after the delete, with no API call per review", async () => {
    await eventually("synced", async () => (await server.get("/readyz")).status === 200);
    api.put(workspace("dev-environment", "default"));
    await eventually("admitted", async () => (await verdict(server)).allowed === true);
    const callsBefore = api.requests.length;
    for (let i = 0; i < 20; i++) assert.equal((await verdict(server)).allowed, true);
    const elsewhere = customModule();
    elsewhere.spec.workspace = { name: "dev-environment", namespace: "prod" };
    assert.equal(
      (await verdict(server, elsewhere)).status.details.causes[0].message,
      'Not found: "prod/dev-environment" (rule module.workspace-exists)',
    );
    assert.equal(api.requests.length, callsBefore, "21 reviews, not one request to the API server");
    api.remove("batch.forkspacer.com/v1", "Workspace", "default", "dev-environment");
    await eventually("denied again", async () => (await verdict(server)).allowed === false);
  });
});

describe("serve without any kube config", () => {
  it("turns the Workspace check off and says so; readyz is ready", async () => {
    const logs: Record<string, unknown>[] = [];
    const certDir = tempDir("serve-no-cluster-");
    const cluster = await prepareClusterFeatures({
      workspaceCheck: "auto",
      certDir,
      dnsNames,
      log: (fields) => logs.push(fields),
      env: { HOME: tempDir("empty-home-") },
    });
    const server = await startLiveServer(undefined, {
      lookups: cluster.lookups,
      isReady: cluster.isReady,
      certDir,
    });
    try {
      assert.ok(
        logs.some((l) => l.msg === "no kubeconfig and not in a cluster: the spec.workspace check is off"),
      );
      assert.equal((await server.get("/readyz")).status, 200);
      assert.equal((await verdict(server)).allowed, true);
    } finally {
      await server.close();
      await cluster.stop();
    }
  });

  it("refuses --self-signed-secret, which needs a cluster, with a clear message", async () => {
    await assert.rejects(
      prepareClusterFeatures({
        workspaceCheck: "off",
        selfSignedSecret: "ns/name",
        certDir: tempDir("x-"),
        dnsNames,
        log: () => {},
        env: { HOME: tempDir("empty-home-") },
      }),
      /--self-signed-secret needs cluster access/,
    );
  });
});

describe("serve --self-signed-secret over HTTPS (fake API server)", () => {
  it("starts with the Secret's certificate and serves a renewed one without a restart", async () => {
    const api = await startFakeKubeApi();
    const certDir = tempDir("serve-self-signed-");
    const cluster = await prepareClusterFeatures({
      kubeconfig: api.kubeconfigPath,
      workspaceCheck: "off",
      selfSignedSecret: "module-admission/module-admission-tls",
      certDir,
      dnsNames,
      log: () => {},
      validityDays: 0.01,
    });
    const server = await startLiveServer(undefined, { lookups: cluster.lookups, certDir });
    cluster.attach(server.running.server);
    const secretData = () => api.get("v1", "Secret", "module-admission", "module-admission-tls")?.data;
    const decode = (base64: string) => Buffer.from(base64, "base64").toString("utf8");
    try {
      const first = decode(secretData()["tls.crt"]);
      assert.equal(
        await servedFingerprint(server.running.port, decode(secretData()["ca.crt"])),
        fingerprint(first),
      );
      // Another replica renews the Secret (its clock is past the renewal point of the short validity).
      const renewer = await startSelfSignedCertificates({
        kubeConfig: api.kubeConfig(),
        secret: { namespace: "module-admission", name: "module-admission-tls" },
        certDir: tempDir("renewer-"),
        dnsNames,
        log: () => {},
        validityDays: 0.01,
        now: () => Date.now() + 10 * 60_000,
      });
      renewer.stop();
      const renewed = decode(secretData()["tls.crt"]);
      assert.notEqual(renewed, first);
      assert.deepEqual(await cluster.certificates?.refresh(), { filesChanged: true, issued: false });
      assert.equal(readFileSync(join(certDir, "tls.crt"), "utf8"), renewed);
      assert.equal(
        await servedFingerprint(server.running.port, decode(secretData()["ca.crt"])),
        fingerprint(renewed),
      );
    } finally {
      await server.close();
      await cluster.stop();
      await api.close();
    }
  });
});

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

/** The fingerprint of the certificate a fresh TLS connection is served, verified against `ca`. */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}
