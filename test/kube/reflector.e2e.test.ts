import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoreV1Api, Watch } from "@kubernetes/client-node";
import { type ObjectMeta, Reflector } from "../../src/kube/reflector.js";
import { eventually } from "../support/eventually.js";
import { startFakeKubeApi } from "../support/fake-kube-api.js";

describe("Reflector", () => {
  it("moves its resourceVersion on with BOOKMARKs, so a resumed watch skips what it never needed", async () => {
    const api = await startFakeKubeApi();
    const kubeConfig = api.kubeConfig();
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const reflector = new Reflector<{ metadata?: ObjectMeta }>({
      list: () => core.listSecretForAllNamespaces(),
      watch: new Watch(kubeConfig),
      path: "/api/v1/secrets",
    });
    try {
      reflector.start();
      await eventually("the watch is open", () => api.openWatches() === 1);
      const listed = reflector.lastSyncResourceVersion;
      // A change elsewhere moves the cluster's resourceVersion without any Secret event.
      const configMap = api.put({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c", namespace: "x" },
      });
      assert.equal(reflector.lastSyncResourceVersion, listed);
      api.sendBookmarks();
      const bookmarked = configMap.metadata.resourceVersion;
      await eventually("the bookmark arrived", () => reflector.lastSyncResourceVersion === bookmarked);
      assert.notEqual(bookmarked, listed);
      api.closeWatches();
      const watches = () => api.requests.filter((r) => r.query.get("watch") === "true");
      await eventually("a second watch", () => watches().length === 2);
      assert.equal(watches()[1]?.query.get("resourceVersion"), bookmarked);
      assert.equal(watches()[0]?.query.get("allowWatchBookmarks"), "true");
    } finally {
      await reflector.stop();
      await api.close();
    }
  });

  it("keeps of each object only what `retain` returns, from the list and from the watch", async () => {
    const api = await startFakeKubeApi();
    const kubeConfig = api.kubeConfig();
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const secret = (name: string) => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, namespace: "x" },
      data: { big: Buffer.from("x".repeat(1000)).toString("base64") },
    });
    api.put(secret("listed"));
    const reflector = new Reflector<{ metadata?: ObjectMeta; data?: unknown }>({
      list: () => core.listSecretForAllNamespaces(),
      watch: new Watch(kubeConfig),
      path: "/api/v1/secrets",
      retain: ({ metadata }) => ({ metadata: { name: metadata?.name, namespace: metadata?.namespace } }),
    });
    try {
      reflector.start();
      await eventually("the watch is open", () => api.openWatches() === 1);
      api.put(secret("watched"));
      await eventually("the watch delivered it", () => reflector.get("x", "watched") !== undefined);
      for (const name of ["listed", "watched"]) {
        assert.deepEqual(reflector.get("x", name), { metadata: { name, namespace: "x" } });
      }
    } finally {
      await reflector.stop();
      await api.close();
    }
  });
});
