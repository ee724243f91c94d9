import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CoreV1Api } from "@kubernetes/client-node";
import { findClusterAccess } from "../../src/kube/config.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";

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

  describe("in a pod (a real API server)", { skip: withoutGo }, () => {
    const cluster = useControlPlane();

    it("uses the in-cluster service account's token and CA when there is no kubeconfig", async () => {
      const kubectl = (...args: string[]) => cluster().kubectl(args);
      await kubectl("create", "namespace", "x");
      await kubectl("create", "serviceaccount", "reader", "-n", "x");
      await kubectl("create", "role", "read-secrets", "-n", "x", "--verb=list", "--resource=secrets");
      await kubectl(
        "create",
        "rolebinding",
        "reader",
        "-n",
        "x",
        "--role=read-secrets",
        "--serviceaccount=x:reader",
      );
      const token = await kubectl("create", "token", "reader", "-n", "x");
      assert.equal(token.code, 0, token.stderr);
      // What the kubelet mounts into a pod of that ServiceAccount.
      const root = home();
      const dir = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "token"), token.stdout.trim());
      writeFileSync(join(dir, "ca.crt"), cluster().caCert);
      const { hostname, port } = new URL(cluster().url);
      const env = { HOME: home(), KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port };
      const access = findClusterAccess(undefined, env, root);
      assert.equal(access?.source, "in-cluster");
      const api = access?.kubeConfig.makeApiClient(CoreV1Api);
      // Authenticated as the ServiceAccount (its role lets it list Secrets in x, nothing else), CA verified.
      assert.deepEqual((await api?.listNamespacedSecret({ namespace: "x" }))?.items, []);
      await assert.rejects(
        api?.listNamespacedSecret({ namespace: "default" }) ?? Promise.resolve(),
        (error: { body?: string }) =>
          String(error.body).includes(
            'User \\"system:serviceaccount:x:reader\\" cannot list resource \\"secrets\\"',
          ),
      );
    });
  });

  it("says which file is missing", () => {
    assert.throws(
      () => findClusterAccess("/nonexistent/kubeconfig", {}),
      /kubeconfig \/nonexistent\/kubeconfig does not exist/,
    );
  });
});
