import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load as loadYaml } from "js-yaml";
import type { GeneratedPolicy } from "../../src/codegen/native-policies.js";
import { clusters, helmLint, type Manifest, render } from "../support/chart.js";
import { installProjectCrds } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { chartDir, helm } from "../support/helm.js";
import { typeCheckWarnings } from "../support/policy-server.js";

const generated = loadYaml(
  readFileSync(`${chartDir}/files/policies/validating.yaml`, "utf8"),
) as GeneratedPolicy[];
const modulePolicies = generated.filter((policy) => policy.kind === "module");

/** What `helm template` is told of a cluster: its version and the admission APIs it serves. */
const served = {
  "1.37": [
    "--kube-version",
    "1.37.2",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
    "--api-versions",
    "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy",
  ],
  "1.34 with MutatingAdmissionPolicy v1beta1 on": [
    "--kube-version",
    "1.34.0",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
    "--api-versions",
    "admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy",
  ],
  "without MutatingAdmissionPolicy": clusters.current,
  "without ValidatingAdmissionPolicy": clusters.withoutPolicies,
};

/** The chart's three ways, as values. */
const ways = {
  "webhook only": {},
  both: { nativePolicies: { enabled: true } },
  narrowed: { nativePolicies: { enabled: true, mode: "narrowed" } },
};

const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const nativeVaps = (manifests: Manifest[]) =>
  ofKind(manifests, "ValidatingAdmissionPolicy").filter(
    (m) => m.metadata.labels?.["module-admission.forkspacer.com/rule"],
  );
const webhook = (manifests: Manifest[], kind: string, name: string) =>
  ofKind(manifests, kind)
    .flatMap((configuration) => configuration.webhooks as Record<string, any>[])
    .find((entry) => entry.name === name);
const narrowedBy = (entry: Record<string, any> | undefined) =>
  (entry?.matchConditions ?? []).find(
    (condition: { name: string }) => condition.name === "not-expressible-in-cel",
  );

describe("the chart's native policies: webhook only, both, narrowed (helm template and lint)", () => {
  it("webhook only (the default): no native policy, the webhooks called for every request", async () => {
    const manifests = await render(ways["webhook only"], served["1.37"]);
    assert.deepEqual(nativeVaps(manifests), []);
    assert.deepEqual(ofKind(manifests, "MutatingAdmissionPolicy"), []);
    assert.equal(
      narrowedBy(
        webhook(manifests, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com"),
      ),
      undefined,
    );
  });

  it("both: a policy per Module rule CEL can express, bound as the rule's action, beside the unnarrowed webhooks", async () => {
    const manifests = await render(ways.both, served["1.37"]);
    const vaps = nativeVaps(manifests);
    assert.deepEqual(
      vaps.map((vap) => vap.metadata.labels["module-admission.forkspacer.com/rule"]).sort(),
      modulePolicies.map((policy) => policy.rule).sort(),
    );
    const bindings = new Map(
      ofKind(manifests, "ValidatingAdmissionPolicyBinding").map((b) => [
        b.spec.policyName,
        b.spec.validationActions,
      ]),
    );
    for (const vap of vaps) {
      const policy = modulePolicies.find(
        (p) => p.rule === vap.metadata.labels["module-admission.forkspacer.com/rule"],
      );
      assert.deepEqual(
        bindings.get(vap.metadata.name),
        [policy?.action === "deny" ? "Deny" : "Warn"],
        vap.metadata.name,
      );
      // The webhooks' namespace selector: kube-system and the release's own namespace are never judged.
      assert.ok(JSON.stringify(vap.spec.matchConstraints.namespaceSelector).includes("kube-system"));
    }
    const map = ofKind(manifests, "MutatingAdmissionPolicy");
    assert.deepEqual(
      map.map((m) => m.apiVersion),
      ["admissionregistration.k8s.io/v1"],
    );
    assert.equal(
      narrowedBy(
        webhook(manifests, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com"),
      ),
      undefined,
    );
  });

  it("narrowed: the webhooks' matchConditions call them only for what CEL cannot express", async () => {
    const manifests = await render(ways.narrowed, served["1.37"]);
    const validate = narrowedBy(
      webhook(manifests, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com"),
    );
    const mutate = narrowedBy(
      webhook(manifests, "MutatingWebhookConfiguration", "mutate.modules.batch.forkspacer.com"),
    );
    assert.match(validate?.expression ?? "", /contains\('\{\{'\)/, "templates still call it");
    assert.match(
      validate?.expression ?? "",
      /request\.operation == 'CREATE'/,
      "module.workspace-exists on CREATE",
    );
    assert.match(
      mutate?.expression ?? "",
      /object\.metadata\.name\.size\(\) <= 53/,
      "names CEL cannot use still call it",
    );
    const withoutLookups = await render(
      { ...ways.narrowed, workspaceCheck: { enabled: false } },
      served["1.37"],
    );
    const narrower = narrowedBy(
      webhook(withoutLookups, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com"),
    );
    assert.doesNotMatch(narrower?.expression ?? "", /^\(request\.operation == 'CREATE'\)/);
    assert.ok((narrower?.expression ?? "").length < (validate?.expression ?? "").length);
  });

  it("renders v1beta1 MutatingAdmissionPolicies where 1.34 serves only those, and none where none is served", async () => {
    const beta = await render(ways.narrowed, served["1.34 with MutatingAdmissionPolicy v1beta1 on"]);
    assert.deepEqual(
      ofKind(beta, "MutatingAdmissionPolicy").map((m) => m.apiVersion),
      ["admissionregistration.k8s.io/v1beta1"],
    );
    assert.deepEqual(
      ofKind(beta, "MutatingAdmissionPolicyBinding").map((m) => m.apiVersion),
      ["admissionregistration.k8s.io/v1beta1"],
    );
    const noMap = await render(ways.narrowed, served["without MutatingAdmissionPolicy"]);
    assert.deepEqual(ofKind(noMap, "MutatingAdmissionPolicy"), []);
    // Without a MutatingAdmissionPolicy the mutating webhook keeps every mutation: not narrowed.
    assert.equal(
      narrowedBy(webhook(noMap, "MutatingWebhookConfiguration", "mutate.modules.batch.forkspacer.com")),
      undefined,
    );
    assert.ok(
      narrowedBy(webhook(noMap, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com")),
    );
  });

  it("renders nothing native and narrows nothing where the cluster does not say it serves ValidatingAdmissionPolicy v1", async () => {
    const manifests = await render(ways.narrowed, served["without ValidatingAdmissionPolicy"]);
    assert.deepEqual(nativeVaps(manifests), []);
    assert.equal(
      narrowedBy(
        webhook(manifests, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com"),
      ),
      undefined,
    );
  });

  it("binds a rule as ruleActions says: warn binds Warn, off leaves the policy out (and out of the narrowed conditions)", async () => {
    const manifests = await render(
      {
        ...ways.narrowed,
        ruleActions: {
          "module.config-value": "warn",
          "module.custom-image": "off",
          // The two rules called when a git chart is present: with both off, nothing asks for that call.
          "module.git-url": "off",
          "module.git-revision": "off",
        },
      },
      served["1.37"],
    );
    const names = nativeVaps(manifests).map(
      (vap) => vap.metadata.labels["module-admission.forkspacer.com/rule"],
    );
    assert.ok(!names.includes("module.custom-image"));
    const binding = ofKind(manifests, "ValidatingAdmissionPolicyBinding").find((b) =>
      b.metadata.name.endsWith(".module.config-value"),
    );
    assert.deepEqual(binding?.spec.validationActions, ["Warn"]);
    const validate = narrowedBy(
      webhook(manifests, "ValidatingWebhookConfiguration", "validate.modules.batch.forkspacer.com"),
    );
    assert.doesNotMatch(
      validate?.expression ?? "",
      /has\(object\.spec\.helm\.chart\.git\)\)/,
      "module.git-url and module.git-revision are off",
    );
  });

  it("renders Kyma's policies with the Kyma webhook, and the Workspace's in replace mode", async () => {
    const manifests = await render(
      { ...ways.both, kyma: { webhook: { enabled: true } }, forkspacer: { mode: "replace" } },
      served["1.37"],
    );
    const rules = nativeVaps(manifests).map(
      (vap) => vap.metadata.labels["module-admission.forkspacer.com/rule"],
    );
    assert.deepEqual(rules.sort(), generated.map((policy) => policy.rule).sort());
  });

  for (const [way, values] of Object.entries(ways)) {
    it(`lints (--strict) ${way}`, async () => {
      const lint = await helmLint(values);
      assert.equal(lint.code, 0, lint.stdout + lint.stderr);
    });
  }
});

describe("the chart's three ways install on a real API server (kube-apiserver 1.37.2)", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();

  for (const [way, values] of Object.entries(ways)) {
    it(`installs ${way}`, async () => {
      // The Module CRD is installed apart (install-crds); the policies' type check needs it.
      await installProjectCrds(plane());
      const release = way.replaceAll(" ", "-");
      const valuesArgs =
        Object.keys(values).length > 0
          ? [
              "--set-json",
              `nativePolicies=${JSON.stringify((values as { nativePolicies: object }).nativePolicies)}`,
            ]
          : [];
      const install = await helm([
        "install",
        release,
        chartDir,
        "--kubeconfig",
        plane().kubeconfigPath,
        "--namespace",
        release,
        "--create-namespace",
        ...valuesArgs,
      ]);
      assert.equal(install.code, 0, install.stderr);
      const listed = await plane().kubectl([
        "get",
        "validatingadmissionpolicies,mutatingadmissionpolicies,validatingwebhookconfigurations",
        "-l",
        `app.kubernetes.io/instance=${release}`,
        "-o",
        "json",
      ]);
      assert.equal(listed.code, 0, listed.stderr);
      const items = JSON.parse(listed.stdout).items as Manifest[];
      const native = items.filter((item) => item.metadata.labels?.["module-admission.forkspacer.com/rule"]);
      assert.equal(native.length, way === "webhook only" ? 0 : modulePolicies.length);
      assert.equal(
        items.filter((item) => item.kind === "MutatingAdmissionPolicy").length,
        way === "webhook only" ? 0 : 1,
      );
      const validate = items
        .filter((item) => item.kind === "ValidatingWebhookConfiguration")
        .flatMap((item) => item.webhooks as Record<string, any>[])
        .find((entry) => entry.name === "validate.modules.batch.forkspacer.com");
      assert.equal(
        narrowedBy(validate) !== undefined,
        way === "narrowed",
        "the API server took the narrowed matchConditions",
      );
    });
  }

  it("every installed policy type-checks clean (what kube-controller-manager writes into its status)", () => {
    const warnings = typeCheckWarnings(plane());
    assert.ok(Object.keys(warnings).length >= 2 * modulePolicies.length);
    assert.deepEqual(
      Object.entries(warnings).filter(([, found]) => (found ?? []).length > 0),
      [],
    );
  });
});
