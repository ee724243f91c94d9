import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CoreV1Api } from "@kubernetes/client-node";
import { findClusterAccess } from "../../src/kube/config.js";
import { startFakeKubeApi } from "../support/fake-kube-api.js";

const kubeconfig = (server: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });

describe("finding cluster access", () => {
  const home = () => mkdtempSync(join(tmpdir(), "home-"));

  it("finds none without a kubeconfig or a service account (no localhost:8080 fallback)", () => {
    assert.equal(
      findClusterAccess(undefined, { HOME: home(), KUBERNETES_SERVICE_HOST: "10.0.0.1" }, home()),
      undefined,
    );
  });

  it("prefers an explicit file, then $KUBECONFIG, then ~/.kube/config", () => {
    const dir = home();
    const write = (file: string, server: string) => {
      writeFileSync(join(dir, file), kubeconfig(server));
      return join(dir, file);
    };
    const explicit = write("explicit", "https://explicit:6443");
    const fromEnv = write("env", "https://env:6443");
    mkdirSync(join(dir, ".kube"));
    write(".kube/config", "https://home:6443");
    const env = { HOME: dir, KUBECONFIG: fromEnv };
    assert.equal(
      findClusterAccess(explicit, env)?.kubeConfig.getCurrentCluster()?.server,
      "https://explicit:6443",
    );
    assert.equal(findClusterAccess(undefined, env)?.source, fromEnv);
    assert.equal(
      findClusterAccess(undefined, { HOME: dir })?.kubeConfig.getCurrentCluster()?.server,
      "https://home:6443",
    );
  });

  it("uses the in-cluster service account when there is no kubeconfig", async () => {
    const api = await startFakeKubeApi();
    try {
      const root = home();
      const dir = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "token"), api.token);
      writeFileSync(join(dir, "ca.crt"), api.caCert);
      const { port } = new URL(api.url);
      const env = { HOME: home(), KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port };
      const access = findClusterAccess(undefined, env, root);
      assert.equal(access?.source, "in-cluster");
      const secrets = await access?.kubeConfig
        .makeApiClient(CoreV1Api)
        .listNamespacedSecret({ namespace: "x" });
      assert.deepEqual(secrets?.items, []);
      assert.equal(
        api.requests.at(-1)?.status,
        200,
        "authenticated with the service account token, CA verified",
      );
    } finally {
      await api.close();
    }
  });

  it("says which file is missing", () => {
    assert.throws(
      () => findClusterAccess("/nonexistent/kubeconfig", {}),
      /kubeconfig \/nonexistent\/kubeconfig does not exist/,
    );
  });
});
