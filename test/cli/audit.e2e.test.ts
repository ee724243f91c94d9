import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Finding } from "../../src/base/finding.js";
import { installProjectCrds, kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";
import { auditCapturing } from "../support/run-audit.js";

/** Seven Modules in two namespaces; the even ones in "team" have replicas over the max. */
function modules(): object[] {
  return Array.from({ length: 7 }, (_, i) => {
    const module = helmModule();
    const namespace = i < 5 ? "team" : "other";
    module.metadata = { name: `m${i}`, namespace };
    if (namespace === "team" && i % 2 === 0) module.spec.config = { ...module.spec.config, replicas: 9 };
    return module;
  });
}

describe("audit against a real API server", { skip: withoutGo }, () => {
  // Its audit log shows the pages audit asked for.
  const cluster = useControlPlane({ auditLog: true });
  before(async () => {
    // The CRDs install-crds applies (not the optional Kyma ones), and Modules stored with no webhook.
    await installProjectCrds(cluster(), false);
    await kubectlApply(cluster(), [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } },
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } },
      ...modules(),
    ]);
  });

  const run = (args: string[]) => auditCapturing(cluster().kubeconfigPath, args);
  const listRequests = () =>
    cluster()
      .requests()
      .filter((r) => r.verb === "list" && r.user === "admin" && /\/modules\?/.test(r.requestURI))
      .map((r) => new URL(r.requestURI, "https://server"))
      .map((url) => ({ path: url.pathname, query: url.searchParams }));

  it("lists every namespace page by page (limit, continue) and reports what today's rules say of each", async () => {
    const before = listRequests().length;
    const { status, out, err } = await run(["-A", "--kind", "Module", "--chunk-size", "3", "-o", "json"]);
    assert.equal(status, 1, err);
    const requests = listRequests().slice(before);
    assert.deepEqual(
      requests.map((r) => [r.path, r.query.get("limit"), r.query.get("continue") !== null]),
      [
        ["/apis/batch.forkspacer.com/v1/modules", "3", false],
        ["/apis/batch.forkspacer.com/v1/modules", "3", true],
        ["/apis/batch.forkspacer.com/v1/modules", "3", true],
      ],
    );
    const findings = (JSON.parse(out) as { findings: Finding[] }).findings;
    const errors = findings.filter((f) => f.severity === "error");
    assert.deepEqual(
      errors.map((f) => [f.file, f.object, f.rule, f.message]),
      [0, 2, 4].map((i) => [
        `/apis/batch.forkspacer.com/v1/namespaces/team/modules/m${i}`,
        `Module team/m${i}`,
        "validating-webhook/module.config-value",
        "spec.config.replicas: Invalid value: 9: must be less than or equal to 5",
      ]),
    );
    assert.deepEqual(
      findings.filter((f) => f.severity === "warning"),
      [],
      "nothing about server-set metadata",
    );
  });

  it("lists one namespace with -n, and reports a rule whatever its action; admitted objects exit 0", async () => {
    const before = listRequests().length;
    const team = await run(["-n", "team", "--kind", "modules", "--chunk-size", "2"]);
    assert.equal(team.status, 1);
    assert.equal(team.out.split("\n").filter(Boolean).length, 3);
    assert.deepEqual(
      listRequests()
        .slice(before)
        .map((r) => [r.path, r.query.get("limit")]),
      Array(3).fill(["/apis/batch.forkspacer.com/v1/namespaces/team/modules", "2"]),
      "five Modules in pages of two",
    );
    const other = await run(["-n", "other"]);
    assert.equal(other.status, 0, other.out);
    assert.equal(other.out, "");
    assert.match(other.err, /ModuleTemplate is not served by this cluster .*; skipped/);
  });

  it("refuses bad flags", async () => {
    await assert.rejects(run(["-n", "x", "-A"]), /-n NAMESPACE or -A, not both/);
    await assert.rejects(run(["--kind", "Pod"]), /audit knows Module, Workspace, ModuleTemplate/);
    await assert.rejects(run(["--chunk-size", "0"]), /--chunk-size must be a positive integer/);
  });
});
