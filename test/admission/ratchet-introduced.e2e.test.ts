import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { Finding } from "../../src/base/finding.js";
import { webhookRulesCelReports } from "../../src/offline/duplicates.js";
import { createModuleKind } from "../../src/resources/module/index.js";
import { moduleTemplateKind } from "../../src/resources/moduletemplate/index.js";
import { manifestDir } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";
import { buildCommand } from "../support/serve-process.js";

type Kube = Record<string, any>;

/**
 * The four updates of issue 32 that introduced a problem and were admitted: each stored object, the
 * update, and what its denial must name (field and rule, nothing else); then a controller's update of
 * the same stored object (its finalizers, a label) that must still go through.
 */
interface Introduced {
  name: string;
  path: string;
  gvk: { group: string; version: string; kind: string; resource: string };
  stored: () => Kube;
  update: (object: Kube) => void;
  introduced: [field: string, rule: string][];
  /** A metadata-only update of the stored object, admitted. */
  housekeeping: (object: Kube) => void;
}

const moduleGvk = { group: "batch.forkspacer.com", version: "v1", kind: "Module", resource: "modules" };
const modulePath = "/validate-batch-forkspacer-com-v1-module";
const gitChart = { repo: "https://example.com/charts.git", path: "redis", revision: "main" };
const clusterScoped = "operator.kyma-project.io/is-cluster-scoped";

const cases: Introduced[] = [
  {
    name: "a spec change to a Module being deleted: a second chart source",
    path: modulePath,
    gvk: moduleGvk,
    stored: () => {
      const module = helmModule() as Kube;
      module.metadata.deletionTimestamp = "2026-11-25T20:00:00Z";
      module.metadata.finalizers = ["batch.forkspacer.com/finalizer"];
      return module;
    },
    update: (m) => {
      m.spec.helm.chart.git = gitChart;
    },
    introduced: [["spec.helm.chart.git", "module.chart-source"]],
    // Its controller removes its finalizer: the object must be able to go.
    housekeeping: (m) => {
      m.metadata.finalizers = [];
    },
  },
  {
    name: "a metadata-only ModuleTemplate update: is-cluster-scoped from true to True",
    path: "/validate-operator-kyma-project-io-v1beta2-moduletemplate",
    gvk: {
      group: "operator.kyma-project.io",
      version: "v1beta2",
      kind: "ModuleTemplate",
      resource: "moduletemplates",
    },
    stored: () => {
      const template = kedaTemplate() as Kube;
      template.metadata.annotations = { [clusterScoped]: "true" };
      return template;
    },
    update: (t) => {
      t.metadata.annotations[clusterScoped] = "True";
    },
    introduced: [[`metadata.annotations[${clusterScoped}]`, "moduletemplate.cluster-scoped"]],
    housekeeping: (t) => {
      t.metadata.labels = { ...t.metadata.labels, team: "platform" };
    },
  },
  {
    name: "new templates reading a releaseName of 60 characters stored before the limit",
    path: modulePath,
    gvk: moduleGvk,
    stored: () => {
      const module = helmModule() as Kube;
      module.metadata.namespace = "n".repeat(48);
      module.spec.helm.releaseName = `${"n".repeat(48)}-abcdefghijk`;
      return module;
    },
    update: (m) => {
      m.spec.helm.chart.repo.version = "{{len .releaseName}}";
      m.spec.helm.values.push({ raw: { tag: "{{index .releaseName 99}}" } });
    },
    introduced: [
      ["spec.helm.chart.repo.version", "module.template-json-type"],
      ["spec.helm.values[1].raw.tag", "module.template-exec"],
    ],
    housekeeping: (m) => {
      m.metadata.finalizers = ["batch.forkspacer.com/finalizer"];
    },
  },
  {
    name: 'a second chart source beside a stored repo whose url is ""',
    path: modulePath,
    gvk: moduleGvk,
    stored: () => {
      const module = helmModule() as Kube;
      module.spec.helm.chart.repo.url = "";
      return module;
    },
    update: (m) => {
      m.spec.helm.chart.git = gitChart;
    },
    introduced: [["spec.helm.chart.git", "module.chart-source"]],
    housekeeping: (m) => {
      m.metadata.labels = { team: "platform" };
    },
  },
];

const changed = (object: Kube, edit: (object: Kube) => void): Kube => {
  const copy = structuredClone(object);
  edit(copy);
  return copy;
};

const ruleOf = (message: string) => /\(rule ([^)]+)\)$/.exec(message)?.[1] ?? "";
const sorted = (pairs: [string, string][]) => [...pairs].sort((a, b) => a.join().localeCompare(b.join()));

describe("the updates of issue 32 that introduced a problem, denied naming exactly it", () => {
  describe("through the live HTTPS server", () => {
    let server: LiveServer;
    before(async () => {
      server = await startLiveServer([
        createModuleKind() as ResourceKind,
        moduleTemplateKind as ResourceKind,
      ]);
    });
    after(() => server.close());

    for (const c of cases) {
      it(c.name, async () => {
        const post = async (object: Kube, oldObject: Kube) => {
          const review = admissionReview({ operation: "UPDATE", object, oldObject, ...c.gvk });
          const reply = await server.post(c.path, review);
          assert.equal(reply.status, 200);
          return reply.json.response;
        };
        const stored = c.stored();
        const response = await post(changed(stored, c.update), stored);
        assert.equal(response.allowed, false, JSON.stringify(response));
        assert.equal(response.status.code, 422);
        const causes = (response.status.details.causes as { field: string; message: string }[]).map(
          (cause): [string, string] => [cause.field, ruleOf(cause.message)],
        );
        assert.deepEqual(sorted(causes), sorted(c.introduced));
        const housekeeping = await post(changed(stored, c.housekeeping), stored);
        assert.equal(housekeeping.allowed, true, JSON.stringify(housekeeping));
      });
    }
  });

  describe("by `validate --old`, the built command", () => {
    let command: string;
    before(() => {
      command = buildCommand();
    });

    const run = async (object: Kube, oldObject: Kube) => {
      const dir = manifestDir({ "new.yaml": [object], "old.yaml": [oldObject] });
      const args = ["validate", "-f", join(dir, "new.yaml"), "--old", join(dir, "old.yaml"), "-o", "json"];
      return promisify(execFile)(process.execPath, [command, ...args]).then(
        (done) => ({ code: 0, stdout: done.stdout }),
        (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
      );
    };

    for (const c of cases) {
      it(c.name, async () => {
        const stored = c.stored();
        const denied = await run(changed(stored, c.update), stored);
        assert.equal(denied.code, 1, denied.stdout);
        const findings = (JSON.parse(denied.stdout) as { findings: Finding[] }).findings;
        const webhookErrors = findings
          .filter((f) => f.severity === "error" && f.rule.startsWith("validating-webhook/"))
          .map((f): [string, string] => [
            f.message.split(": ")[0] ?? "",
            f.rule.replace("validating-webhook/", ""),
          ]);
        // A problem the CRD's CEL rule reports too is reported once, as the CEL error (issue 24).
        const celOnly = webhookRulesCelReports(findings.filter((f) => f.rule.startsWith("cel/")));
        const expected = c.introduced.filter(([, rule]) => !celOnly.includes(rule));
        assert.deepEqual(sorted(webhookErrors), sorted(expected), denied.stdout);
        const admitted = await run(changed(stored, c.housekeeping), stored);
        assert.equal(admitted.code, 0, admitted.stdout);
      });
    }
  });
});
