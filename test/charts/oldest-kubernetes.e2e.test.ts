import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { installCrds } from "../../src/cli/install-crds.js";
import { variants } from "../support/chart.js";
import { applyChartDryRun, registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { chartDir } from "../support/helm.js";
import { helmModule } from "../support/modules.js";

const floor = (load(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as { kubeVersion: string })
  .kubeVersion;
/** The chart's kubeVersion floor as kube-apiserver's --emulated-version takes it: ">=1.34.0-0" -> "1.34". */
const oldest = /^>=(\d+\.\d+)\.0-0$/.exec(floor)?.[1];

/**
 * The oldest Kubernetes the chart admits, as far as a 1.37 kube-apiserver's --emulated-version reaches
 * back (three minor versions): the CRDs install, every mode of the chart is accepted, and the webhooks
 * are called.
 */
describe(`the oldest Kubernetes the chart admits (kubeVersion ${floor}), emulated`, {
  skip: withoutGo,
}, () => {
  assert.ok(oldest, `Chart.yaml's kubeVersion ${floor} names a minor version`);
  const cluster = useControlPlane({ emulatedVersion: oldest });

  it("the server emulates that version (/version's emulationMajor and emulationMinor)", async () => {
    const version = JSON.parse((await cluster().get("/version")).body) as {
      emulationMajor: string;
      emulationMinor: string;
    };
    assert.equal(`${version.emulationMajor}.${version.emulationMinor}`, oldest);
  });

  it("install-crds --include-optional: every generated CRD Established", async () => {
    let out = "";
    await installCrds(["--kubeconfig", cluster().kubeconfigPath, "--include-optional"], {
      out: (text) => (out += text),
      env: { HOME: mkdtempSync(join(tmpdir(), "home-")) },
    });
    assert.equal(out.match(/condition met \(Established\)/g)?.length, 4, out);
  });

  for (const [name, values] of Object.entries(variants)) {
    it(`the chart, ${name}: every object accepted (--dry-run=server)`, async () => {
      const run = await applyChartDryRun(cluster(), values);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim().split("\n").length, run.applied.length, run.stdout);
    });
  }

  it("the webhooks: registered, a Module is named by the mutating one and denied by the validating one", async () => {
    const serve = await startLocalServe(cluster());
    // Registration itself waits until the server has called both webhooks (see registerChartWebhooks).
    await registerChartWebhooks(cluster(), serve);
    const module = helmModule();
    module.metadata = { name: "too-many", namespace: "webhook-probe" };
    module.spec.workspace = { name: "probe", namespace: "webhook-probe" };
    module.spec.config = { ...module.spec.config, replicas: 9 };
    const run = await cluster().kubectl(["create", "-f", "-"], { input: JSON.stringify(module) });
    assert.equal(
      run.stderr.trim(),
      'The Module "too-many" is invalid: spec.config.replicas: Invalid value: 9: must be less than or equal to 5 (rule module.config-value)',
    );
  });
});
