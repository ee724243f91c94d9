import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { variants } from "../support/chart.js";
import { applyChartDryRun } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";

/**
 * Every mode of the chart, rendered with helm for a real kube-apiserver (its version and the kinds it
 * serves, as `helm install` asks), applied with `kubectl apply --dry-run=server`: the server's decoding,
 * defaulting, validation and admission accept every object.
 */
describe("the chart on a real API server (kubectl apply --dry-run=server)", { skip: withoutGo }, () => {
  const cluster = useControlPlane();

  for (const [name, values] of Object.entries(variants)) {
    it(`${name}: every object accepted`, async () => {
      const run = await applyChartDryRun(cluster(), values);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trim().split("\n");
      assert.equal(lines.length, run.applied.length, run.stdout);
      for (const line of lines) assert.match(line, / (created|configured|unchanged) \(server dry run\)$/);
      // cert-manager is not installed here: its two kinds are the only ones left out.
      assert.equal(run.leftOut.length > 0, JSON.stringify(values).includes('"certManager"'));
    });
  }
});
