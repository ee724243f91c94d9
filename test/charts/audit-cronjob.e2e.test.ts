import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { load as loadYaml } from "js-yaml";
import { runAudit } from "../../src/cli/audit.js";
import { find, helmLint, type Manifest, releaseNamespace, render } from "../support/chart.js";
import { corpusUrl, withoutCorpus } from "../support/corpus.js";
import { type FakeKubeApi, type KubeObject, startFakeKubeApi } from "../support/fake-kube-api.js";
import { withoutGo } from "../support/go-tools.js";
import { schemaProblems } from "../support/kubernetes-schemas.js";
import { type Access, type PolicyRule, rulesAllow } from "../support/kubernetes-semantics.js";
import { helmModule } from "../support/modules.js";

const fullname = "rel-module-admission";
const ourCrds = new URL("../../charts/module-admission/files/crds/", import.meta.url);
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

  for (const reportApi of ["wgpolicyk8s", "openreports"]) {
    describe(`least privilege, ${reportApi}: the role allows exactly what the Job's command asks of an API server`, {
      skip: withoutCorpus,
    }, () => {
      let api: FakeKubeApi;
      let manifests: Manifest[];
      before(async () => {
        manifests = await render({ audit: { schedule: "@hourly", reportApi } });
        api = await startFakeKubeApi({ validateCustomResources: true });
        for (const file of readdirSync(ourCrds).filter((name) => !name.startsWith("moduletemplates."))) {
          api.put(loadYaml(readFileSync(new URL(file, ourCrds), "utf8")) as KubeObject);
        }
        for (const dir of ["wgpolicyk8s.io", "openreports.io"]) {
          for (const file of readdirSync(new URL(`${dir}/`, reportCrdsDir))) {
            api.put(loadYaml(readFileSync(new URL(`${dir}/${file}`, reportCrdsDir), "utf8")) as KubeObject);
          }
        }
        for (const [name, namespace, replicas] of [
          ["a", "team", 9],
          ["b", "other", 7],
        ] as const) {
          const module = helmModule();
          module.metadata = { name, namespace };
          module.spec.config = { ...module.spec.config, replicas };
          api.put(module as unknown as KubeObject);
        }
      });
      after(() => api.close());

      /** The RBAC access each request needed, as the API server's authorizer asks it. */
      const accesses = (): Access[] =>
        api.requests.flatMap((request): Access[] => {
          const parts = request.path.split("/").filter(Boolean);
          const group = parts[0] === "apis" ? (parts[1] as string) : "";
          const rest = parts.slice(parts[0] === "apis" ? 3 : 2);
          const namespaced = rest[0] === "namespaces";
          const [resource, name] = namespaced ? rest.slice(2) : rest;
          const base = { group, resource: resource as string, ...(name ? { name } : {}) };
          if (request.method === "GET") return [{ ...base, verb: name ? "get" : "list" }];
          if (request.method === "DELETE") return [{ ...base, verb: "delete" }];
          if (request.method === "PATCH") {
            // Server-side apply that creates the object needs create as well.
            return request.status === 201
              ? [
                  { ...base, verb: "patch" },
                  { ...base, verb: "create" },
                ]
              : [{ ...base, verb: "patch" }];
          }
          return [{ ...base, verb: request.method.toLowerCase() }];
        });

      test("two runs of the Job's command (create, update, delete a stale report) need nothing the role lacks", async () => {
        const args = find(manifests, "CronJob").spec.jobTemplate.spec.template.spec.containers[0]
          .args as string[];
        const io = { out: () => {}, err: () => {}, env: { HOME: mkdtempSync(join(tmpdir(), "home-")) } };
        assert.equal(await runAudit(["--kubeconfig", api.kubeconfigPath, ...args.slice(1)], io), 0);
        api.remove("batch.forkspacer.com/v1", "Module", "other", "b");
        assert.equal(await runAudit(["--kubeconfig", api.kubeconfigPath, ...args.slice(1)], io), 0);
        const needed = accesses();
        assert.ok(needed.some((a) => a.verb === "create"));
        assert.ok(needed.some((a) => a.verb === "delete"));
        const rules = auditRules(manifests);
        assert.deepEqual(
          needed.filter((access) => !rulesAllow(rules, access)),
          [],
        );
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
