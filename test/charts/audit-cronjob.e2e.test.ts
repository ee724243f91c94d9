import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { load as loadYaml } from "js-yaml";
import { runAudit } from "../../src/cli/audit.js";
import { find, helmLint, type Manifest, releaseNamespace, render } from "../support/chart.js";
import { installProjectCrds, kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { corpusUrl, withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";
import { schemaProblems } from "../support/kubernetes-schemas.js";
import { type PolicyRule, rulesAllow } from "../support/kubernetes-semantics.js";
import { helmModule } from "../support/modules.js";

const fullname = "rel-module-admission";
const reportCrdsDir = corpusUrl("policy-reports/");

const auditRules = (manifests: Manifest[]): PolicyRule[] => {
  const binding = find(manifests, "ClusterRoleBinding", `${fullname}-audit`);
  assert.deepEqual(binding.subjects, [
    { kind: "ServiceAccount", name: `${fullname}-audit`, namespace: releaseNamespace },
  ]);
  return find(manifests, "ClusterRole", binding.roleRef.name).rules;
};

describe("audit.schedule: a CronJob running audit --apply", { skip: withoutGo }, () => {
  test("off by default: no CronJob, no audit ServiceAccount or role", async () => {
    const manifests = await render();
    assert.ok(!manifests.some((m) => m.kind === "CronJob" || m.metadata.name.endsWith("-audit")));
  });

  test("on: the schedule, one at a time, non-root, read-only, the same image; lint and the kinds' schemas pass", async () => {
    const values = { audit: { schedule: "17 * * * *" } };
    const lint = await helmLint(values);
    assert.equal(lint.code, 0, lint.stdout);
    const manifests = await render(values);
    for (const manifest of manifests) assert.deepEqual(schemaProblems(manifest), [], manifest.kind);
    const cronJob = find(manifests, "CronJob", `${fullname}-audit`);
    assert.equal(cronJob.spec.schedule, "17 * * * *");
    assert.equal(cronJob.spec.concurrencyPolicy, "Forbid");
    const pod = cronJob.spec.jobTemplate.spec.template.spec;
    assert.equal(pod.serviceAccountName, `${fullname}-audit`);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    const [container] = pod.containers;
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.image, find(manifests, "Deployment").spec.template.spec.containers[0].image);
    assert.deepEqual(container.args, ["audit", "--all-namespaces", "--apply", "--report-api=wgpolicyk8s"]);
    // Its pods are not the webhook's: the Service and the PDB do not select them.
    const selector = find(manifests, "Service").spec.selector;
    const labels = cronJob.spec.jobTemplate.spec.template.metadata.labels;
    assert.ok(Object.entries(selector).some(([key, value]) => labels[key] !== value));
  });

  describe("least privilege on a real API server: the Job's command, as the Job's ServiceAccount, under the chart's roles", {
    skip: withoutCorpus,
  }, () => {
    const cluster = useControlPlane();
    before(async () => {
      await installProjectCrds(cluster(), false);
      const reportCrds = ["wgpolicyk8s.io", "openreports.io"].flatMap((dir) =>
        readdirSync(new URL(`${dir}/`, reportCrdsDir)).map(
          (file) => loadYaml(readFileSync(new URL(`${dir}/${file}`, reportCrdsDir), "utf8")) as object,
        ),
      );
      await kubectlApply(cluster(), reportCrds, ["--server-side"]);
      const names = reportCrds.map((crd) => `customresourcedefinition/${(crd as Manifest).metadata.name}`);
      await cluster().kubectl(["wait", "--for=condition=Established", "--timeout=120s", ...names]);
      const modules = (["team", "other"] as const).map((namespace, index) => {
        const module = helmModule();
        module.metadata = { name: namespace === "team" ? "a" : "b", namespace };
        module.spec.config = { ...module.spec.config, replicas: 9 + index };
        return module;
      });
      await kubectlApply(cluster(), [
        ...[releaseNamespace, "team", "other"].map((name) => ({
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name },
        })),
        ...modules,
      ]);
    });

    test("without the chart's roles the same command is refused, naming what it lacks (the check is not vacuous)", async () => {
      const manifests = await render({ audit: { schedule: "@hourly" } });
      const pod = find(manifests, "CronJob").spec.jobTemplate.spec.template.spec;
      const user = `system:serviceaccount:${releaseNamespace}:${pod.serviceAccountName}`;
      const kubeconfig = await cluster().kubeconfigFor(user, ["system:serviceaccounts"]);
      let err = "";
      const io = {
        out: () => {},
        err: (text: string) => (err += text),
        env: { HOME: mkdtempSync(join(tmpdir(), "home-")) },
      };
      const status = await runAudit(
        ["--kubeconfig", kubeconfig, ...(pod.containers[0].args as string[]).slice(1)],
        io,
      ).catch((error: Error) => {
        err += error.message;
        return 2;
      });
      assert.notEqual(status, 0);
      assert.match(err, new RegExp(`User "${user}" cannot list resource "modules"`));
    });

    for (const reportApi of ["wgpolicyk8s", "openreports"]) {
      test(`${reportApi}: two runs (create, update, delete a stale report) succeed with nothing but the role`, async () => {
        const manifests = await render({ audit: { schedule: "@hourly", reportApi } });
        const rbac = manifests.filter((m) =>
          ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"].includes(m.kind),
        );
        await kubectlApply(cluster(), rbac, ["--namespace", releaseNamespace]);
        const account = find(manifests, "CronJob").spec.jobTemplate.spec.template.spec.serviceAccountName;
        const kubeconfig = await cluster().kubeconfigFor(
          `system:serviceaccount:${releaseNamespace}:${account}`,
          ["system:serviceaccounts", `system:serviceaccounts:${releaseNamespace}`],
        );
        const args = find(manifests, "CronJob").spec.jobTemplate.spec.template.spec.containers[0]
          .args as string[];
        let err = "";
        const io = {
          out: () => {},
          err: (text: string) => (err += text),
          env: { HOME: mkdtempSync(join(tmpdir(), "home-")) },
        };
        assert.equal(await runAudit(["--kubeconfig", kubeconfig, ...args.slice(1)], io), 0, err);
        const [group, resource] =
          reportApi === "openreports" ? ["openreports.io", "reports"] : ["wgpolicyk8s.io", "policyreports"];
        const reports = async () =>
          (await cluster().kubectl(["get", `${resource}.${group}`, "-A", "-o", "name"])).stdout
            .trim()
            .split("\n")
            .filter(Boolean).length;
        assert.equal(await reports(), 2);
        const fixed = await cluster().kubectl(["delete", "module", "b", "-n", "other"]);
        assert.equal(fixed.code, 0, fixed.stderr);
        assert.equal(await runAudit(["--kubeconfig", kubeconfig, ...args.slice(1)], io), 0, err);
        assert.equal(await reports(), 1, "the stale report of namespace other was deleted");
        // Put b back for the next report API.
        const module = helmModule();
        module.metadata = { name: "b", namespace: "other" };
        module.spec.config = { ...module.spec.config, replicas: 10 };
        await kubectlApply(cluster(), [module]);
      });
    }
  });

  for (const reportApi of ["wgpolicyk8s", "openreports"]) {
    describe(`least privilege, ${reportApi}: the role allows no more than the Job's command needs`, () => {
      let manifests: Manifest[];
      before(async () => {
        manifests = await render({ audit: { schedule: "@hourly", reportApi } });
      });

      test("and no more: no get, watch, update or wildcard; patch and delete only of module-admission", () => {
        const rules = auditRules(manifests);
        const group = reportApi === "openreports" ? "openreports.io" : "wgpolicyk8s.io";
        const resource = reportApi === "openreports" ? "reports" : "policyreports";
        for (const verb of ["get", "watch", "update"]) {
          assert.ok(!rulesAllow(rules, { verb, group: "batch.forkspacer.com", resource: "modules" }), verb);
          assert.ok(!rulesAllow(rules, { verb, group, resource, name: "module-admission" }), verb);
        }
        assert.ok(!rulesAllow(rules, { verb: "delete", group, resource, name: "kyverno-report" }));
        assert.ok(!rulesAllow(rules, { verb: "list", group: "", resource: "secrets" }));
        assert.ok(rules.every((rule) => ![...(rule.verbs ?? []), ...(rule.resources ?? [])].includes("*")));
      });
    });
  }
});
