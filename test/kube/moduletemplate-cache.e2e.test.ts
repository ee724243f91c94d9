import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { moduleTemplateNames, type NameCache, startNameCache } from "../../src/kube/name-cache.js";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, startFakeKubeApi } from "../support/fake-kube-api.js";
import { moduleTemplateCrd, namedTemplate } from "../support/modulereleasemetas.js";

const templatesPath = "/apis/operator.kyma-project.io/v1beta2/moduletemplates";

describe("ModuleTemplate cache (list + watch against a fake API server)", () => {
  let api: FakeKubeApi;
  let cache: NameCache | undefined;
  let logs: Record<string, unknown>[];
  const start = (tuning = {}) => {
    cache = startNameCache(api.kubeConfig(), (fields) => logs.push(fields), moduleTemplateNames, {
      retryDelayMs: 20,
      ...tuning,
    });
    return cache;
  };
  const lists = () => api.requests.filter((r) => r.path === templatesPath && r.query.get("watch") !== "true");

  beforeEach(async () => {
    api = await startFakeKubeApi();
    logs = [];
  });
  afterEach(async () => {
    await cache?.stop();
    cache = undefined;
    await api.close();
  });

  it("is not ready (and admits) until the first list answers, then knows each template by namespace and name", async () => {
    api.put(moduleTemplateCrd());
    api.put(namedTemplate("keda-1.2.0"));
    const { release } = api.hold((r) => r.path === templatesPath && r.query.get("watch") !== "true");
    const cache = start();
    await eventually("the list was asked", () => lists().length === 1);
    assert.equal(cache.isReady(), false);
    assert.equal(cache.exists("kcp-system", "keda-9.9.9"), true, "an unsynced cache cannot deny");
    release();
    await eventually("the cache synced", () => cache.isReady());
    assert.equal(cache.exists("kcp-system", "keda-1.2.0"), true);
    assert.equal(cache.exists("kcp-system", "keda-1.3.0"), false);
    assert.equal(cache.exists("default", "keda-1.2.0"), false);
  });

  it("follows the watch: a template added, then deleted", async () => {
    api.put(moduleTemplateCrd());
    const cache = start();
    await eventually("the watch is open", () => api.openWatches() === 1);
    api.put(namedTemplate("keda-1.3.0"));
    await eventually("ADDED arrived", () => cache.exists("kcp-system", "keda-1.3.0"));
    api.remove("operator.kyma-project.io/v1beta2", "ModuleTemplate", "kcp-system", "keda-1.3.0");
    await eventually("DELETED arrived", () => !cache.exists("kcp-system", "keda-1.3.0"));
    assert.equal(lists().length, 1);
  });

  it("skips the check while the ModuleTemplate CRD is missing, says so once, and starts when it appears", async () => {
    const cache = start({ absentRetryMs: 20 });
    await eventually("the cache gave up for now", () => cache.isReady());
    assert.equal(cache.exists("kcp-system", "anything-1.0.0"), true);
    await eventually("several lists", () => lists().length >= 3);
    const warnings = logs.filter((l) => String(l.msg).includes("ModuleTemplate CRD"));
    assert.equal(warnings.length, 1, JSON.stringify(logs));
    api.put(moduleTemplateCrd());
    await eventually("synced", () => !cache.exists("kcp-system", "anything-1.0.0"));
  });
});
