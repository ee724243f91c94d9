import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseServeFlags } from "../../src/cli/serve.js";
import { find, render } from "../support/chart.js";
import { withoutGo } from "../support/go-tools.js";

/**
 * Issue 21's loss came from the chart's timing, not from the drain's mechanics (which
 * test/server/shutdown.e2e.test.ts checks, its drain ended by an event): the listener closed before
 * readiness could be withdrawn. So the chart as rendered must give the drain longer than the readiness
 * probe needs to fail twice plus one period for the endpoints to catch up, and the grace period must end
 * before the kubelet's SIGKILL.
 */
describe("the chart's shutdown timing", { skip: withoutGo }, () => {
  test("drains longer than readiness takes to be withdrawn, and finishes before the kubelet kills the pod", async () => {
    const deployment = find(await render(), "Deployment");
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const serveArgs = (container.args as string[]).slice((container.args as string[]).indexOf("serve") + 1);
    const flags = parseServeFlags(serveArgs);
    const probe = container.readinessProbe as { periodSeconds: number; failureThreshold: number };
    const withdrawnAfterMs = probe.periodSeconds * (probe.failureThreshold + 1) * 1000;
    assert.ok(
      flags.drainMs >= withdrawnAfterMs,
      `drain ${flags.drainMs} ms, readiness withdrawn and endpoints caught up after up to ${withdrawnAfterMs} ms`,
    );
    // Kubernetes' default when the pod does not set it.
    const killAfterMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
    assert.ok(flags.graceMs < killAfterMs, `grace ${flags.graceMs} ms, SIGKILL after ${killAfterMs} ms`);
  });
});
