import assert from "node:assert/strict";
import { request } from "node:https";
import { describe, it } from "node:test";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";

/** The harness itself: a real API server is up, answers kubectl and the client library, and stores objects. */
describe("control plane (kube-apiserver and etcd built from Go modules)", { skip: withoutGo }, () => {
  const cluster = useControlPlane();

  it("is ready, and kubectl's version is the server's", async () => {
    const run = await cluster().kubectl(["version", "-o", "json"]);
    assert.equal(run.code, 0, run.stderr);
    const versions = JSON.parse(run.stdout) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    assert.match(versions.serverVersion.gitVersion, /^v1\.\d+\.\d+/);
    assert.equal(
      versions.clientVersion.gitVersion.replace(/-.*/, ""),
      versions.serverVersion.gitVersion.replace(/-.*/, ""),
    );
  });

  it("refuses an anonymous client (RBAC): only the admin certificate is let in", async () => {
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = `${cluster().url}/api/v1/namespaces`;
      const req = request(url, { ca: cluster().caCert, servername: "localhost" }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(reply.status, 403);
    assert.match(JSON.parse(reply.body).message, /User "system:anonymous" cannot list resource "namespaces"/);
  });

  it("creates a namespace with kubectl and reads it with the client library", async () => {
    const created = await cluster().kubectl(["create", "namespace", "smoke"]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), "namespace/smoke created");
    const { CoreV1Api } = await import("@kubernetes/client-node");
    const api = cluster().kubeConfig().makeApiClient(CoreV1Api);
    const read = await api.readNamespace({ name: "smoke" });
    assert.equal(read.status?.phase, "Active");
    const again = await cluster().kubectl(["create", "namespace", "smoke"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /namespaces "smoke" already exists/);
  });
});
