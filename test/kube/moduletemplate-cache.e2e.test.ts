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

  // The list and watch mechanics are startNameCache's, tested on Workspaces (workspace-cache.e2e.test.ts);
  // here, that moduleTemplateNames follows the real resource and says which check it serves.
  it("follows ModuleTemplates by namespace and name; without their CRD, says the template check is skipped", async () => {
    const cache = start({ absentRetryMs: 20 });
    await eventually("the cache gave up for now", () => cache.isReady());
    assert.equal(cache.exists("kcp-system", "keda-1.2.0"), true, "no CRD: the check cannot deny");
    const warnings = logs.filter((l) => String(l.msg).includes("ModuleTemplate CRD"));
    assert.match(
      String(warnings[0]?.msg),
      /\(moduletemplates\.operator\.kyma-project\.io\) is not installed: the ModuleReleaseMeta template check is skipped/,
    );
    api.put(moduleTemplateCrd());
    api.put(namedTemplate("keda-1.2.0"));
    await eventually("synced", () => !cache.exists("kcp-system", "keda-1.3.0"));
    await eventually("listed or watched", () => cache.exists("kcp-system", "keda-1.2.0"));
    assert.equal(cache.exists("default", "keda-1.2.0"), false);
    assert.ok(lists().length >= 2, "listed at the ModuleTemplates' path");
  });
});
