import assert from "node:assert/strict";
import { after, afterEach, beforeEach, describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { type NameCache, startNameCache, workspaceNames } from "../../src/kube/name-cache.js";
import { find, releaseNamespace, render } from "../support/chart.js";
import { installProjectCrds, kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, startFakeKubeApi } from "../support/fake-kube-api.js";
import { withoutGo } from "../support/go-tools.js";
import { workspace, workspaceCrd } from "../support/workspaces.js";

const wsApi = "batch.forkspacer.com/v1";
const workspacesPath = "/apis/batch.forkspacer.com/v1/workspaces";

/**
 * What a real API server is not made to do on demand stays on the fake one: hold the first list, end a
 * watch and count what the client asks next, compact history away so a watch answers 410 Gone.
 */
describe("Workspace cache: requests a real server cannot be made to show (fake API server)", () => {
  let api: FakeKubeApi;
  let cache: NameCache | undefined;
  let logs: Record<string, unknown>[];
  const start = (tuning = {}) => {
    cache = startNameCache(api.kubeConfig(), (fields) => logs.push(fields), workspaceNames, {
      retryDelayMs: 20,
      ...tuning,
    });
    return cache;
  };
  const lists = () =>
    api.requests.filter((r) => r.path === workspacesPath && r.query.get("watch") !== "true");
  const watches = () =>
    api.requests.filter((r) => r.path === workspacesPath && r.query.get("watch") === "true");

  beforeEach(async () => {
    api = await startFakeKubeApi();
    logs = [];
  });
  afterEach(async () => {
    await cache?.stop();
    cache = undefined;
    await api.close();
  });

  it("is not ready until the first list answers, then knows what it listed", async () => {
    api.put(workspaceCrd);
    api.put(workspace("dev-environment", "default"));
    const { release } = api.hold((r) => r.path === workspacesPath && r.query.get("watch") !== "true");
    const cache = start();
    await eventually("the list was asked", () => lists().length === 1);
    assert.equal(cache.isReady(), false);
    assert.equal(cache.exists("default", "nope"), true, "an unsynced cache cannot deny");
    release();
    await eventually("the cache synced", () => cache.isReady());
    assert.equal(cache.exists("default", "dev-environment"), true);
    assert.equal(cache.exists("default", "other"), false);
    assert.equal(cache.exists("prod", "dev-environment"), false);
  });

  it("resumes a closed watch from the last version seen, without listing again", async () => {
    api.put(workspaceCrd);
    const cache = start();
    await eventually("the watch is open", () => api.openWatches() === 1);
    api.put(workspace("a"));
    await eventually("a arrived", () => cache.exists("default", "a"));
    const seen = api.get(wsApi, "Workspace", "default", "a")?.metadata.resourceVersion;
    api.closeWatches();
    await eventually("a second watch", () => watches().length === 2 && api.openWatches() === 1);
    assert.equal(watches()[1]?.query.get("resourceVersion"), seen);
    api.put(workspace("b"));
    await eventually("b arrived on the resumed watch", () => cache.exists("default", "b"));
    assert.equal(lists().length, 1);
  });

  it("lists again when the watch answers 410 Gone, and drops what vanished meanwhile", async () => {
    api.put(workspaceCrd);
    api.put(workspace("doomed"));
    const cache = start();
    await eventually("the watch is open", () => api.openWatches() === 1);
    assert.equal(cache.exists("default", "doomed"), true);
    api.closeWatches();
    api.changeWhileCompacted(() => {
      api.remove(wsApi, "Workspace", "default", "doomed");
      api.put(workspace("born"));
    });
    await eventually("a relist", () => lists().length === 2);
    await eventually("the cache reflects the relist", () => !cache.exists("default", "doomed"));
    assert.equal(cache.exists("default", "born"), true);
    assert.equal(cache.isReady(), true);
  });
});

describe("Workspace cache against a real API server (list + watch)", { skip: withoutGo }, () => {
  const cluster = useControlPlane();
  const logs: Record<string, unknown>[] = [];
  const caches: NameCache[] = [];
  const start = (kubeConfig = cluster().kubeConfig(), tuning = {}) => {
    const cache = startNameCache(kubeConfig, (fields) => logs.push(fields), workspaceNames, {
      retryDelayMs: 20,
      absentRetryMs: 20,
      ...tuning,
    });
    caches.push(cache);
    return cache;
  };
  after(async () => {
    for (const cache of caches) await cache.stop();
  });
  const kubectl = (args: string[], object?: object) =>
    cluster().kubectl(args, object ? { input: JSON.stringify(object) } : {});

  it("skips the check while the Workspace CRD is missing, says so once, and starts when install-crds adds it", async () => {
    const cache = start();
    await eventually("the cache gave up for now", () => cache.isReady());
    assert.equal(cache.exists("default", "anything"), true, "no CRD: the check cannot deny");
    const warnings = logs.filter((l) => String(l.msg).includes("Workspace CRD"));
    assert.equal(warnings.length, 1, JSON.stringify(logs));
    assert.match(String(warnings[0]?.msg), /not installed: the spec.workspace check is skipped/);
    await installProjectCrds(cluster(), false);
    await eventually("the cache synced", () => !cache.exists("default", "anything"));
    assert.ok(logs.some((l) => l.msg === "Workspace cache synced: the spec.workspace check is on"));
    assert.equal((await kubectl(["create", "-f", "-"], workspace("anything"))).code, 0);
    await eventually("the watch delivered it", () => cache.exists("default", "anything"));
  });

  it("knows what it listed, and follows the watch: added in any namespace, deleted", async () => {
    await kubectl(["create", "namespace", "team-a"]);
    assert.equal((await kubectl(["create", "-f", "-"], workspace("listed", "team-a"))).code, 0);
    const cache = start();
    await eventually("synced", () => cache.isReady() && cache.exists("team-a", "listed"));
    assert.equal(cache.exists("team-a", "other"), false);
    assert.equal(cache.exists("default", "listed"), false);
    assert.equal((await kubectl(["create", "-f", "-"], workspace("late", "team-a"))).code, 0);
    await eventually("the ADDED event arrived", () => cache.exists("team-a", "late"));
    assert.equal((await kubectl(["delete", "workspace", "late", "-n", "team-a"])).code, 0);
    await eventually("the DELETED event arrived", () => !cache.exists("team-a", "late"));
  });

  it("keeps following when the server ends each watch (timeoutSeconds)", async () => {
    const cache = start(cluster().kubeConfig(), { watchTimeoutSeconds: 1 });
    await eventually("synced", () => cache.isReady() && cache.exists("default", "anything"));
    // Each object is created after the watch that was open when the last one arrived has ended.
    for (const name of ["after-1", "after-2", "after-3"]) {
      await new Promise((done) => setTimeout(done, 1100));
      assert.equal((await kubectl(["create", "-f", "-"], workspace(name))).code, 0);
      await eventually(`${name} arrived`, () => cache.exists("default", name));
    }
  });

  it("as the chart's service account: refused (RBAC) without the chart's roles, says why, and syncs once they are applied", async () => {
    const manifests = await render();
    const account = find(manifests, "Deployment").spec.template.spec.serviceAccountName as string;
    const user = `system:serviceaccount:${releaseNamespace}:${account}`;
    const kubeconfigPath = await cluster().kubeconfigFor(user, [
      "system:serviceaccounts",
      `system:serviceaccounts:${releaseNamespace}`,
    ]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    const before = logs.length;
    const cache = start(kubeConfig, { retryDelayMs: 20 });
    await eventually("a refused list logged", () => logs.slice(before).some((l) => l.level === "error"));
    assert.equal(cache.isReady(), false);
    assert.equal(
      logs.slice(before).find((l) => l.level === "error")?.msg,
      `list ${workspacesPath} failed: workspaces.batch.forkspacer.com is forbidden: User "${user}" cannot list resource "workspaces" in API group "batch.forkspacer.com" at the cluster scope (HTTP 403)`,
    );
    const rbac = manifests.filter((m) =>
      ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"].includes(
        m.kind,
      ),
    );
    await kubectl(["create", "namespace", releaseNamespace]);
    await kubectlApply(cluster(), rbac, ["--namespace", releaseNamespace]);
    await eventually(
      "synced under the chart's RBAC",
      () => cache.isReady() && cache.exists("default", "after-1"),
    );
  });

  it("goes back to skipping when the CRD is deleted", async () => {
    const cache = start();
    await eventually("synced", () => cache.isReady() && !cache.exists("default", "x"));
    assert.equal(
      (await kubectl(["delete", "customresourcedefinition", "workspaces.batch.forkspacer.com"])).code,
      0,
    );
    await eventually("the check is skipped", () => cache.exists("default", "x"));
  });
});
