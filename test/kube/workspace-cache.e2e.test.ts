import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type NameCache, startNameCache, workspaceNames } from "../../src/kube/name-cache.js";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, startFakeKubeApi } from "../support/fake-kube-api.js";
import { workspace, workspaceCrd } from "../support/workspaces.js";

const wsApi = "batch.forkspacer.com/v1";
const workspacesPath = "/apis/batch.forkspacer.com/v1/workspaces";

describe("Workspace cache (list + watch against a fake API server)", () => {
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

  it("follows the watch from the list's resourceVersion: added, deleted", async () => {
    api.put(workspaceCrd);
    const cache = start();
    await eventually("the watch is open", () => api.openWatches() === 1);
    const watch = watches()[0];
    assert.equal(watch?.query.get("allowWatchBookmarks"), "true");
    assert.match(watch?.query.get("resourceVersion") ?? "", /^\d+$/);
    api.put(workspace("late", "team-a"));
    await eventually("the ADDED event arrived", () => cache.exists("team-a", "late"));
    api.remove(wsApi, "Workspace", "team-a", "late");
    await eventually("the DELETED event arrived", () => !cache.exists("team-a", "late"));
    assert.equal(lists().length, 1, "one list, the rest came from the watch");
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

  it("skips the check while the Workspace CRD is missing, says so once, and starts when it appears", async () => {
    const cache = start({ absentRetryMs: 20 });
    await eventually("the cache gave up for now", () => cache.isReady());
    assert.equal(cache.exists("default", "anything"), true);
    await eventually("several lists", () => lists().length >= 3);
    const warnings = logs.filter((l) => String(l.msg).includes("Workspace CRD"));
    assert.equal(warnings.length, 1, JSON.stringify(logs));
    assert.match(String(warnings[0]?.msg), /not installed: the spec.workspace check is skipped/);
    api.put(workspaceCrd);
    await eventually("the cache synced", () => !cache.exists("default", "anything"));
    api.put(workspace("anything"));
    await eventually("the watch delivered it", () => cache.exists("default", "anything"));
  });

  it("stays not ready while listing is refused (RBAC), says why, and syncs once allowed", async () => {
    api.put(workspaceCrd);
    const forbidden =
      'workspaces.batch.forkspacer.com is forbidden: User "system:serviceaccount:module-admission:module-admission" cannot list resource "workspaces" in API group "batch.forkspacer.com" at the cluster scope';
    const allow = api.refuse((r) => r.path === workspacesPath, 403, "Forbidden", forbidden);
    const cache = start({ retryDelayMs: 5 });
    await eventually("three refused lists", () => lists().length >= 3);
    assert.equal(cache.isReady(), false);
    assert.equal(logs[0]?.level, "error");
    assert.equal(logs[0]?.msg, `list ${workspacesPath} failed: ${forbidden} (HTTP 403)`);
    allow();
    await eventually("synced", () => cache.isReady());
    assert.equal(cache.exists("default", "dev-environment"), false);
  });

  it("goes back to skipping when the CRD is deleted", async () => {
    api.put(workspaceCrd);
    const cache = start({ absentRetryMs: 20 });
    await eventually("synced", () => api.openWatches() === 1);
    assert.equal(cache.exists("default", "x"), false);
    api.remove("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, workspaceCrd.metadata.name);
    await eventually("the check is skipped", () => cache.exists("default", "x"));
  });
});
