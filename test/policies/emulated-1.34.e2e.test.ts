import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { render } from "../support/chart.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";
import { policyCases } from "../support/policy-cases.js";
import { nativeRules } from "../support/policy-parity.js";
import {
  api,
  apply,
  applyCrds,
  applyPolicies,
  chartPolicies,
  compareAll,
  namespace,
  ourCrds,
  policyObjects,
  typeCheckWarnings,
} from "../support/policy-server.js";

/**
 * Kubernetes 1.34, the oldest the native policies' MutatingAdmissionPolicies serve: kube-apiserver 1.37.2
 * emulating 1.34, with MutatingAdmissionPolicy v1beta1 turned on as a 1.34 cluster turns it on (the
 * feature gate and the API). --emulation-forward-compatible: 1.37's admission plugin reads the policies
 * through the v1 API, which a real 1.34 serves as v1beta1 only; without it the emulated server does not
 * start (its plugin waits for a v1 that emulation hides).
 */
describe("native policies on Kubernetes 1.34 (kube-apiserver 1.37.2 emulating 1.34)", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane({
    emulatedVersion: "1.34",
    apiServerFlags: [
      "--feature-gates=MutatingAdmissionPolicy=true",
      "--runtime-config=admissionregistration.k8s.io/v1beta1=true",
      "--emulation-forward-compatible=true",
    ],
  });
  const { validating } = chartPolicies();
  const cluster134 = [
    "--kube-version",
    "1.34.0",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
    "--api-versions",
    "admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy",
  ];

  it("accepts our CRDs and every generated policy, with no type-check warnings", async () => {
    await applyCrds(plane(), ourCrds());
    await apply(plane(), [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }]);
    await applyPolicies(plane(), policyObjects(validating, "Warn"));
    const warnings = typeCheckWarnings(plane());
    assert.equal(Object.keys(warnings).length, validating.length);
    assert.deepEqual(
      Object.entries(warnings).filter(([, found]) => (found ?? []).length > 0),
      [],
    );
  });

  it("agrees with the webhook rule by rule on every case table and corpus object, CREATE and UPDATE", async () => {
    const result = await compareAll(plane(), policyCases(), nativeRules);
    console.log(`1.34: ${result.compared} requests compared (${result.skipped} skipped)`);
    assert.deepEqual(result.report, []);
  });

  it("applies the chart's v1beta1 MutatingAdmissionPolicy: a release name from metadata.name, kept on UPDATE", async () => {
    const rendered = await render({ nativePolicies: { enabled: true } }, cluster134);
    const mutating = rendered.filter((m) => m.kind.startsWith("MutatingAdmissionPolicy"));
    assert.deepEqual(
      mutating.map((m) => `${m.apiVersion} ${m.kind}`),
      [
        "admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy",
        "admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicyBinding",
      ],
    );
    // The chart's namespace selector leaves out its own release namespace, not ours.
    await apply(plane(), mutating);
    const module = helmModule();
    module.metadata = { name: "cache", namespace };
    if (module.spec.helm) delete module.spec.helm.releaseName;
    const collection = `/apis/batch.forkspacer.com/v1/namespaces/${namespace}/modules`;
    let created = await api(plane(), "POST", collection, module);
    for (let attempt = 0; created.status < 300 && !hasReleaseName(created.body) && attempt < 60; attempt++) {
      // The API server picks a new policy up asynchronously: retry with a fresh object until it applies.
      await api(plane(), "DELETE", `${collection}/cache`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      created = await api(plane(), "POST", collection, module);
    }
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(releaseNameOf(created.body), "cache");
    const dropped = structuredClone(created.body) as { spec: { helm: Record<string, unknown> } };
    delete dropped.spec.helm.releaseName;
    const updated = await api(plane(), "PUT", `${collection}/cache`, dropped);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(releaseNameOf(updated.body), "cache", "an update that drops the name gets it back");
    const generated = helmModule();
    generated.metadata = { generateName: "cache-", namespace };
    if (generated.spec.helm) delete generated.spec.helm.releaseName;
    const unnamed = await api(plane(), "POST", `${collection}?dryRun=All`, generated);
    assert.equal(unnamed.status, 201, JSON.stringify(unnamed.body));
    assert.equal(releaseNameOf(unnamed.body), undefined, "a generateName Module is left to the webhook");
  });
});

const releaseNameOf = (object: Record<string, unknown>) =>
  (object.spec as { helm?: { releaseName?: string } } | undefined)?.helm?.releaseName;
const hasReleaseName = (object: Record<string, unknown>) => releaseNameOf(object) !== undefined;
