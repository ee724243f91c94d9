import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { find, type Manifest, releaseNamespace, render, serverCapabilities } from "../support/chart.js";
import {
  installProjectCrds,
  kubectlApply,
  type LocalServe,
  localWebhookConfigurations,
  startLocalServe,
  waitUntilCalled,
} from "../support/chart-webhooks.js";
import { freePorts, useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";

type Anything = any;

/**
 * The chart's default certificate mode on a real API server: `serve` with the Deployment's own flags,
 * as the chart's ServiceAccount under the chart's roles, issues its CA into the Secret and patches it into
 * both webhook configurations, which the API server then calls; the chart's ValidatingAdmissionPolicy
 * lets that account change nothing else of them.
 */
describe("certificates.mode selfSigned on a real API server", { skip: withoutGo }, () => {
  const cluster = useControlPlane();
  let manifests: Manifest[];
  let serve: LocalServe;
  let account: string;
  let configurationName: string;

  before(async () => {
    await installProjectCrds(cluster(), false);
    manifests = await render({}, await serverCapabilities(cluster()));
    const [port] = await freePorts(1);
    // The chart's objects that are not the Deployment's pods: its account, roles, policy and webhooks.
    const kinds = [
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
    ];
    await kubectlApply(cluster(), [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: releaseNamespace } },
    ]);
    // Into the release namespace, as helm installs what names none.
    await kubectlApply(
      cluster(),
      [
        ...manifests.filter((m) => kinds.includes(m.kind)),
        ...(await localWebhookConfigurations({ port: port as number })),
      ],
      ["--namespace", releaseNamespace],
    );
    const container = find(manifests, "Deployment").spec.template.spec.containers[0];
    account = find(manifests, "Deployment").spec.template.spec.serviceAccountName;
    configurationName = find(manifests, "ValidatingWebhookConfiguration").metadata.name;
    const kubeconfig = await cluster().kubeconfigFor(`system:serviceaccount:${releaseNamespace}:${account}`, [
      "system:serviceaccounts",
      `system:serviceaccounts:${releaseNamespace}`,
    ]);
    // The Deployment's flags, but where it listens, its cert dir and the workers: the test's.
    const own = /^--(port|cert-dir|metrics-bind-address|review-workers|worker-heap-mb|log-reviews)=/;
    const args = (container.args as string[]).slice(1).filter((arg) => !own.test(arg));
    serve = await startLocalServe(cluster(), args, { port: port as number, kubeconfig });
    await waitUntilCalled(cluster());
  });

  it("serve keeps its CA in the Secret and in both webhook configurations' caBundle", async () => {
    const secretName = (find(manifests, "Deployment").spec.template.spec.containers[0].args as string[])
      .find((arg) => arg.startsWith("--self-signed-secret="))
      ?.split("/")[1];
    const secret = JSON.parse(
      (await cluster().kubectl(["get", "secret", secretName ?? "", "-n", releaseNamespace, "-o", "json"]))
        .stdout,
    );
    assert.equal(secret.type, "kubernetes.io/tls");
    const ca = secret.data["ca.crt"];
    assert.match(Buffer.from(ca, "base64").toString(), /^-----BEGIN CERTIFICATE-----/);
    for (const kind of ["mutatingwebhookconfiguration", "validatingwebhookconfiguration"]) {
      const configuration = JSON.parse(
        (await cluster().kubectl(["get", kind, configurationName, "-o", "json"])).stdout,
      );
      for (const webhook of configuration.webhooks) assert.equal(webhook.clientConfig.caBundle, ca, kind);
    }
    assert.ok(serve.logs.length > 0);
  });

  it("the chart's policy: the ServiceAccount may change the caBundle, and nothing else of its webhooks", async () => {
    const kubeconfig = await cluster().kubeconfigFor(`system:serviceaccount:${releaseNamespace}:${account}`, [
      "system:serviceaccounts",
    ]);
    const asAccount = (patch: object[]) =>
      cluster().kubectl([
        "--kubeconfig",
        kubeconfig,
        "patch",
        "validatingwebhookconfiguration",
        configurationName,
        "--type=json",
        "-p",
        JSON.stringify(patch),
      ]);
    const current = JSON.parse(
      (await cluster().kubectl(["get", "validatingwebhookconfiguration", configurationName, "-o", "json"]))
        .stdout,
    ) as Anything;
    const caBundle = current.webhooks[0].clientConfig.caBundle;
    const same = await asAccount([
      { op: "replace", path: "/webhooks/0/clientConfig/caBundle", value: caBundle },
    ]);
    assert.equal(same.code, 0, same.stderr);
    const redirected = await asAccount([
      { op: "replace", path: "/webhooks/0/clientConfig/url", value: "https://attacker.example.com/validate" },
    ]);
    assert.equal(redirected.code, 1);
    assert.equal(
      redirected.stderr.trim(),
      `Error from server (Forbidden): validatingwebhookconfigurations.admissionregistration.k8s.io "${configurationName}" is forbidden: ValidatingAdmissionPolicy 'rel-module-admission-ca-bundle-only' with binding 'rel-module-admission-ca-bundle-only' denied request: the webhook's service account may change only clientConfig.caBundle of its webhook configurations`,
    );
  });
});
