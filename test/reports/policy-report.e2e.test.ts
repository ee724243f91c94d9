import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { loadAll, load as loadYaml } from "js-yaml";
import { FieldPath } from "../../src/base/field-path.js";
import { runAudit } from "../../src/cli/audit.js";
import { buildReports, maxReportBytes, type Report } from "../../src/reports/policy-report.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";
import { pruneAndDefault } from "../../src/validation/prune-default.js";
import { installProjectCrds, kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { corpusUrl, withoutCorpus } from "../support/corpus.js";
import { crdSchemaProblems } from "../support/crd-schema.js";
import type { KubeObject } from "../support/fake-kube-api.js";
import { withoutGo } from "../support/go-tools.js";
import { helmModule } from "../support/modules.js";
import { auditCapturing } from "../support/run-audit.js";

// The report CRDs as Kyverno / Policy Reporter install them.
const reportCrdsDir = corpusUrl("policy-reports/");
const reportCrds = ["wgpolicyk8s.io", "openreports.io"].flatMap((dir) =>
  withoutCorpus
    ? []
    : readdirSync(new URL(`${dir}/`, reportCrdsDir))
        .filter((file) => file.endsWith(".yaml"))
        .map(
          (file) => loadYaml(readFileSync(new URL(`${dir}/${file}`, reportCrdsDir), "utf8")) as KubeObject,
        ),
);

/**
 * A report against its CRD as the API server takes it: the version's openAPIV3Schema (types, enums,
 * required), and nothing the server would prune silently (which the report's readers would not see).
 */
function crdProblems(report: Record<string, any>): string[] {
  const [group, version] = report.apiVersion.split("/");
  const crd = reportCrds.find((c) => c.spec.group === group && c.spec.names.kind === report.kind);
  if (!crd) return [`no CRD for ${report.apiVersion} ${report.kind}`];
  const problems = crdSchemaProblems(crd, version as string, report);
  if (!problems) return [`${crd.metadata.name} does not serve ${version}`];
  const served = (crd.spec.versions as { name: string; schema: { openAPIV3Schema: JsonSchema } }[]).find(
    (v) => v.name === version,
  );
  const schema = served?.schema.openAPIV3Schema as JsonSchema;
  const { pruned } = pruneAndDefault(schema, report);
  return [...problems, ...pruned.map((field) => `${field}: pruned by the API server`)];
}

/**
 * Six Modules in four namespaces: two with replicas over the max, one with a misspelt config value
 * (spec.config keeps unknown fields; a misspelt field elsewhere would be pruned when stored), and one
 * whose values cost more than a review's work (issue 32's templates, which the API server stores):
 * its rules are not judged, and the report says so.
 */
function modules(): KubeObject[] {
  const module = (name: string, namespace: string, change: (m: ReturnType<typeof helmModule>) => void) => {
    const m = helmModule();
    m.metadata = { name, namespace };
    change(m);
    return m as unknown as KubeObject;
  };
  return [
    module("ok", "team", () => {}),
    module("big", "team", (m) => {
      m.spec.config = { ...m.spec.config, replicas: 9 };
    }),
    module("bigger", "team", (m) => {
      m.spec.config = { ...m.spec.config, replicas: 12 };
    }),
    module("typo", "other", (m) => {
      m.spec.config = { ...m.spec.config, repliacs: 3 };
    }),
    module("fine", "quiet", () => {}),
    module("costly", "heavy", (m) => {
      const raw = Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [`k${i}`, '{{$x := js (printf "%999999d" 1)}}']),
      );
      if (m.spec.helm) m.spec.helm.values = [{ raw }];
    }),
  ];
}

describe("policy reports: audit -o policyreport and --apply (real API server, the reports' real CRDs)", {
  skip: withoutCorpus || withoutGo,
}, () => {
  // Its audit log shows how the reports were written.
  const cluster = useControlPlane({ auditLog: true });
  before(async () => {
    await installProjectCrds(cluster(), false);
    await kubectlApply(cluster(), reportCrds, ["--server-side"]);
    const wait = await cluster().kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=120s",
      ...reportCrds.map((crd) => `customresourcedefinition/${crd.metadata.name}`),
    ]);
    assert.equal(wait.code, 0, wait.stderr);
    await kubectlApply(cluster(), [
      ...["team", "other", "quiet", "heavy"].map((name) => ({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name },
      })),
      ...modules(),
    ]);
  });

  const run = (args: string[]) => auditCapturing(cluster().kubeconfigPath, args);
  const kubectl = (args: string[]) => cluster().kubectl(args);
  /** A stored object (with its managedFields), or undefined. */
  const get = async (resource: string, namespace: string, name: string) => {
    const read = await kubectl([
      "get",
      resource,
      name,
      "-n",
      namespace,
      "-o",
      "json",
      "--show-managed-fields",
    ]);
    return read.code === 0 ? (JSON.parse(read.stdout) as Record<string, any>) : undefined;
  };
  const stored = (apiVersion: string, kind: string, namespace: string) =>
    get(`${kind.toLowerCase()}s.${apiVersion.split("/")[0]}`, namespace, "module-admission");

  it("-o policyreport: one PolicyReport per namespace with findings, one result per object and rule, valid against the CRD", async () => {
    const { status, out, err } = await run(["-A", "-o", "policyreport"]);
    assert.equal(status, 1, err);
    const reports = loadAll(out) as Report[];
    assert.deepEqual(
      reports.map((r) => [r.apiVersion, r.kind, r.metadata.namespace, r.metadata.name]),
      [
        ["wgpolicyk8s.io/v1alpha2", "PolicyReport", "heavy", "module-admission"],
        ["wgpolicyk8s.io/v1alpha2", "PolicyReport", "other", "module-admission"],
        ["wgpolicyk8s.io/v1alpha2", "PolicyReport", "team", "module-admission"],
      ],
    );
    for (const report of reports) assert.deepEqual(crdProblems(report), [], report.metadata.namespace);
    const team = reports[2] as Report;
    assert.deepEqual(team.summary, { pass: 0, fail: 2, warn: 0, error: 0, skip: 0 });
    assert.deepEqual(
      team.results.map((r) => [r.policy, r.rule, r.result, r.severity, r.resources?.[0]?.name, r.message]),
      [
        [
          "module-admission",
          "module.config-value",
          "fail",
          "high",
          "big",
          "spec.config.replicas: Invalid value: 9: must be less than or equal to 5",
        ],
        [
          "module-admission",
          "module.config-value",
          "fail",
          "high",
          "bigger",
          "spec.config.replicas: Invalid value: 12: must be less than or equal to 5",
        ],
      ],
    );
    const [warned] = (reports[1] as Report).results;
    assert.equal(warned?.result, "warn");
    assert.equal(warned?.resources?.[0]?.kind, "Module");
    assert.match(warned?.message ?? "", /repliacs/);
    assert.ok(warned?.resources?.[0]?.uid, "the object's uid, so Policy Reporter links the resource");
  });

  it("--report-api openreports: openreports.io/v1alpha1 Reports, valid against their CRD", async () => {
    const { out } = await run(["-A", "-o", "policyreport", "--report-api", "openreports"]);
    const reports = loadAll(out) as Report[];
    assert.deepEqual(
      reports.map((r) => `${r.apiVersion} ${r.kind}`),
      Array(3).fill("openreports.io/v1alpha1 Report"),
    );
    for (const report of reports) assert.deepEqual(crdProblems(report), []);
    assert.equal(reports[0]?.source, "module-admission");
  });

  it("rules not judged are skip results: a review out of work skips the others, with why; passes are not listed", async () => {
    const { out } = await run(["-n", "heavy", "-o", "policyreport"]);
    const [report] = loadAll(out) as Report[];
    assert.ok(report);
    assert.deepEqual(crdProblems(report), []);
    const [failed, ...skipped] = report.results;
    assert.deepEqual([failed?.rule, failed?.result], ["webhook.work-budget", "fail"]);
    assert.ok(skipped.length > 10);
    // Every rule of the Module that applies to a created object, once: no update-only rule.
    assert.equal(new Set(skipped.map((r) => r.rule)).size, skipped.length);
    assert.ok(!skipped.some((r) => r.rule.endsWith("-immutable")));
    assert.ok(skipped.some((r) => r.rule === "module.config-value"));
    for (const result of skipped) {
      assert.deepEqual(
        [result.result, result.scored, result.severity, result.resources?.[0]?.name, result.message],
        [
          "skip",
          false,
          undefined,
          "costly",
          "not judged: the review ran out of its work budget first (webhook.work-budget)",
        ],
        result.rule,
      );
    }
    assert.deepEqual(report.summary, { pass: 0, fail: 1, warn: 0, error: 0, skip: skipped.length });
  });

  it("skip results take the room the findings leave: past maxReportBytes the skips go first", () => {
    const message = `spec.config.replicas: Invalid value: 9: ${"x".repeat(200)}`;
    const objects = Array.from({ length: 2000 }, (_, i) => ({
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Module",
      metadata: { name: `m${i}`, namespace: "big" },
      errors:
        i % 2 === 0
          ? [
              {
                stage: "validating-webhook" as const,
                field: FieldPath.of(["spec", "config", "replicas"]),
                type: "FieldValueInvalid",
                message,
                rule: "module.config-value",
              },
            ]
          : [],
      warnings: [],
      skipped: [{ rule: "module.template-exec", message: `not judged: ${"y".repeat(400)}` }],
    }));
    const [report] = buildReports(objects, "wgpolicyk8s", new Date(0));
    assert.ok(report);
    const count = (result: string) => report.results.filter((r) => r.result === result).length;
    // 1,000 failures of ~600 bytes fit, though skips came between them; 2,000 skips of ~550 bytes do not all fit beside them.
    assert.equal(count("fail"), 1000);
    const skips = count("skip") - 1;
    assert.ok(skips > 0 && skips < 2000, `${skips} skips listed`);
    assert.equal(
      report.results.at(-1)?.message,
      `${2000 - skips} more results are not listed: a report is one object and its size is limited; \`module-admission audit -n big\` lists them all`,
    );
    assert.ok(JSON.stringify(report).length < 1.5 * 1024 * 1024);
    assert.deepEqual(crdProblems(report), []);
  });

  it("a cluster-scoped object's results go into a ClusterPolicyReport / ClusterReport, valid against the CRD", () => {
    const problem = {
      stage: "schema" as const,
      field: FieldPath.of(["spec", "x"]),
      type: "FieldValueInvalid",
      message: "spec.x: Invalid value",
    };
    const object = {
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: { name: "t" },
      errors: [problem],
      warnings: [],
    };
    for (const api of ["wgpolicyk8s", "openreports"] as const) {
      const [report] = buildReports([object], api, new Date(0));
      assert.equal(report?.kind, api === "wgpolicyk8s" ? "ClusterPolicyReport" : "ClusterReport");
      assert.equal(report?.metadata.namespace, undefined);
      assert.equal(report?.results[0]?.rule, "schema/FieldValueInvalid");
      assert.deepEqual(crdProblems(report as Report), []);
    }
  });

  it("a namespace too large for one object: results past maxReportBytes become one skip result saying how many and where", () => {
    const message = `spec.config.replicas: Invalid value: 9: ${"x".repeat(600)}`;
    const objects = Array.from({ length: 3000 }, (_, i) => ({
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Module",
      metadata: { name: `m${i}`, namespace: "big" },
      errors: [
        {
          stage: "validating-webhook" as const,
          field: FieldPath.of(["spec", "config", "replicas"]),
          type: "FieldValueInvalid",
          message,
          rule: "module.config-value",
        },
      ],
      warnings: [],
    }));
    const [report] = buildReports(objects, "wgpolicyk8s", new Date(0));
    assert.ok(report);
    const bytes = JSON.stringify(report).length;
    assert.ok(bytes < 1.5 * 1024 * 1024 && bytes > maxReportBytes * 0.9, `${bytes} bytes`);
    const skip = report.results.at(-1);
    const listed = report.results.length - 1;
    assert.equal(skip?.result, "skip");
    assert.equal(
      skip?.message,
      `${3000 - listed} more results are not listed: a report is one object and its size is limited; \`module-admission audit -n big\` lists them all`,
    );
    assert.deepEqual(report.summary, { pass: 0, fail: listed, warn: 0, error: 0, skip: 1 });
    assert.deepEqual(crdProblems(report), []);
  });

  it("the CRD check is not vacuous: a wrong result, a missing policy and an unknown field are caught", () => {
    const [report] = buildReports(
      [
        {
          apiVersion: "v1",
          kind: "X",
          metadata: { name: "x", namespace: "n" },
          errors: [],
          warnings: [{ stage: "schema", field: FieldPath.empty, type: "Warning", message: "m" }],
        },
      ],
      "wgpolicyk8s",
      new Date(0),
    );
    const broken = structuredClone(report) as unknown as { results: Record<string, unknown>[] };
    broken.results[0] = { ...broken.results[0], result: "denied", policy: undefined, ruleId: "x" };
    const problems = crdProblems(broken as unknown as Report).join("\n");
    assert.match(problems, /\/results\/0\/result: must be equal to one of the allowed values/);
    assert.match(problems, /must have required property 'policy'/);
    assert.match(problems, /results\[0\]\.ruleId: pruned/);
  });

  it("--apply server-side-applies them as module-admission, exits 0, and a second run replaces the results rather than adding to them", async () => {
    const first = await run(["-A", "--apply"]);
    assert.equal(first.status, 0, first.err);
    assert.equal(
      first.out,
      [
        "policyreport.wgpolicyk8s.io/module-admission (namespace heavy) serverside-applied",
        "policyreport.wgpolicyk8s.io/module-admission (namespace other) serverside-applied",
        "policyreport.wgpolicyk8s.io/module-admission (namespace team) serverside-applied",
        "",
      ].join("\n"),
    );
    // The server keeps the skip results as sent.
    const heavy = await stored("wgpolicyk8s.io/v1alpha2", "PolicyReport", "heavy");
    assert.ok(heavy?.results.some((r: { result: string }) => r.result === "skip"));
    const team = await stored("wgpolicyk8s.io/v1alpha2", "PolicyReport", "team");
    assert.ok(team);
    assert.deepEqual(
      (team.metadata.managedFields as { manager: string; operation: string }[]).map((f) => [
        f.manager,
        f.operation,
      ]),
      [["module-admission", "Apply"]],
    );
    // The server stored what audit sent: nothing pruned, nothing it refused.
    const sent = (loadAll((await run(["-A", "-o", "policyreport"])).out) as Report[]).find(
      (report) => report.metadata.namespace === "team",
    );
    assert.deepEqual(
      team.results.map((r: Record<string, unknown>) => ({ ...r, timestamp: undefined })),
      sent?.results.map((r) => ({ ...r, timestamp: undefined })),
    );
    const applies = cluster()
      .requests()
      .filter((r) => r.verb === "patch" && r.requestURI.includes("/policyreports/"))
      .map((r) => new URL(r.requestURI, "https://server").searchParams);
    assert.ok(applies.length >= 2);
    assert.ok(
      applies.every((q) => q.get("fieldManager") === "module-admission" && q.get("force") === "true"),
    );
    await run(["-A", "--apply"]);
    assert.equal((await stored("wgpolicyk8s.io/v1alpha2", "PolicyReport", "team"))?.results.length, 2);
  });

  it("--apply removes stale results: a fixed object's result goes, a namespace with nothing left loses its report", async () => {
    await run(["-A", "--apply"]);
    // spec.config is immutable (module.config-immutable): a fix is a new Module in the old one's place.
    const fixedModules = modules().filter((m) => ["big", "typo"].includes(m.metadata.name));
    for (const module of fixedModules) {
      const deleted = await kubectl([
        "delete",
        "module",
        module.metadata.name,
        "-n",
        module.metadata.namespace,
      ]);
      assert.equal(deleted.code, 0, deleted.stderr);
      const config = module.spec.config as Record<string, unknown>;
      config.replicas = 3;
      delete config.repliacs;
    }
    await kubectlApply(cluster(), fixedModules);
    // Another tool's report in the same namespace is left alone.
    await kubectlApply(cluster(), [
      {
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind: "PolicyReport",
        metadata: {
          name: "kyverno-polr",
          namespace: "other",
          labels: { "app.kubernetes.io/managed-by": "kyverno" },
        },
        results: [],
      },
    ]);
    const { status, out, err } = await run(["-A", "--apply"]);
    assert.equal(status, 0, err);
    assert.match(
      out,
      /policyreport\.wgpolicyk8s\.io\/module-admission \(namespace other\) deleted \(nothing left to report\)/,
    );
    const team = await stored("wgpolicyk8s.io/v1alpha2", "PolicyReport", "team");
    assert.deepEqual(
      team?.results.map((r: { resources: { name: string }[] }) => r.resources[0]?.name),
      ["bigger"],
    );
    assert.equal(await stored("wgpolicyk8s.io/v1alpha2", "PolicyReport", "other"), undefined);
    assert.ok(await get("policyreports.wgpolicyk8s.io", "other", "kyverno-polr"));
  });

  it("the server refuses a report its CRD refuses (the applies above passed that check)", async () => {
    const refused = await cluster().kubectl(["apply", "--server-side", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind: "PolicyReport",
        metadata: { name: "broken", namespace: "team" },
        results: [{ policy: "module-admission", result: "denied" }],
      }),
    });
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr.trim(),
      'The PolicyReport "broken" is invalid: results[0].result: Unsupported value: "denied": supported values: "pass", "fail", "warn", "error", "skip"',
    );
  });

  it("-n NS --apply touches only that namespace's report; openreports too", async () => {
    const { status, out } = await run(["-n", "team", "--apply", "--report-api", "openreports"]);
    assert.equal(status, 0);
    assert.equal(out, "report.openreports.io/module-admission (namespace team) serverside-applied\n");
    const report = await stored("openreports.io/v1alpha1", "Report", "team");
    assert.ok(report);
    assert.deepEqual(crdProblems(report), []);
  });

  it("usage errors: --apply with --kind or another output, an unknown report API; a cluster without the CRD", async () => {
    await assert.rejects(
      run(["-A", "--apply", "--kind", "Module"]),
      /--apply writes each namespace's whole report/,
    );
    await assert.rejects(run(["-A", "--apply", "-o", "json"]), /give no --output/);
    await assert.rejects(
      run(["-A", "-o", "policyreport", "--report-api", "kyverno"]),
      /'--report-api <API>' argument 'kyverno' is invalid. Allowed choices are wgpolicyk8s, openreports/,
    );
    // Last: the cluster loses the report CRDs.
    const deleted = await kubectl([
      "delete",
      "customresourcedefinition",
      "policyreports.wgpolicyk8s.io",
      "clusterpolicyreports.wgpolicyk8s.io",
    ]);
    assert.equal(deleted.code, 0, deleted.stderr);
    await assert.rejects(
      runAudit(["--kubeconfig", cluster().kubeconfigPath, "-A", "--apply"], {
        out: () => {},
        err: () => {},
        env: { HOME: mkdtempSync(join(tmpdir(), "home-")) },
      }),
      /the cluster does not serve policyreports\.wgpolicyk8s\.io\/v1alpha2: install its CRD/,
    );
  });
});
