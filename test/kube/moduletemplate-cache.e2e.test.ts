import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { moduleTemplateNames, type NameCache, startNameCache } from "../../src/kube/name-cache.js";
import { installProjectCrds, kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { namedTemplate } from "../support/modulereleasemetas.js";

// The list and watch mechanics are startNameCache's, tested on Workspaces (workspace-cache.e2e.test.ts);
// here, that moduleTemplateNames follows the real resource and says which check it serves.
describe("ModuleTemplate cache against a real API server (list + watch)", { skip: withoutGo }, () => {
  const cluster = useControlPlane();
  let cache: NameCache | undefined;
  const logs: Record<string, unknown>[] = [];
  after(async () => {
    await cache?.stop();
  });

  it("follows ModuleTemplates by namespace and name; without their CRD, says the template check is skipped", async () => {
    cache = startNameCache(cluster().kubeConfig(), (fields) => logs.push(fields), moduleTemplateNames, {
      retryDelayMs: 20,
      absentRetryMs: 20,
    });
    const started = cache;
    await eventually("the cache gave up for now", () => started.isReady());
    assert.equal(started.exists("kcp-system", "keda-1.2.0"), true, "no CRD: the check cannot deny");
    const warnings = logs.filter((l) => String(l.msg).includes("ModuleTemplate CRD"));
    assert.match(
      String(warnings[0]?.msg),
      /\(moduletemplates\.operator\.kyma-project\.io\) is not installed: the ModuleReleaseMeta template check is skipped/,
    );
    await installProjectCrds(cluster(), true);
    await kubectlApply(cluster(), [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "kcp-system" } },
      namedTemplate("keda-1.2.0"),
    ]);
    await eventually("synced", () => !started.exists("kcp-system", "keda-1.3.0"));
    await eventually("listed or watched", () => started.exists("kcp-system", "keda-1.2.0"));
    assert.equal(started.exists("default", "keda-1.2.0"), false);
    assert.ok(
      logs.some((l) => l.msg === "ModuleTemplate cache synced: the ModuleReleaseMeta template check is on"),
    );
  });
});
