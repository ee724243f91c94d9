import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { Finding } from "../../src/base/finding.js";
import { webhookRulesCelReports } from "../../src/offline/duplicates.js";
import {
  addonOperatorConfigMapKind,
  defaultAddonConfigMap,
} from "../../src/resources/addon-operator-configmap/index.js";
import { createModuleKind } from "../../src/resources/module/index.js";
import { createModuleReleaseMetaKind } from "../../src/resources/modulereleasemeta/index.js";
import { moduleTemplateKind } from "../../src/resources/moduletemplate/index.js";
import { createWorkspaceKind } from "../../src/resources/workspace/index.js";
import { reviewConfigMap, writeTree } from "../support/addon-modules.js";
import { manifestDir } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";
import { buildCommand } from "../support/serve-process.js";

type Kube = Record<string, any>;

/**
 * The updates that introduced a problem and were admitted: those of issue 32, and those that got
 * through before the structure gate was field-scoped (a stored object with one unchanged violation of
 * today's schema). Each: the stored object, the update, what its denial must name (field and rule,
 * nothing else), the legacy problem shown as a warning, and a controller's update of the same stored
 * object that must still go through.
 */
interface Introduced {
  name: string;
  path: string;
  gvk: { group: string; version: string; kind: string; resource: string };
  stored: () => Kube;
  update: (object: Kube) => void;
  introduced: [field: string, rule: string][];
  /** The legacy problem, left as it was: a warning, never a cause. */
  legacy?: string;
  /** A metadata-only update of the stored object, admitted (default: a label and a finalizer). */
  housekeeping?: (object: Kube) => void;
}

const moduleGvk = { group: "batch.forkspacer.com", version: "v1", kind: "Module", resource: "modules" };
const modulePath = "/validate-batch-forkspacer-com-v1-module";
const gitChart = { repo: "https://example.com/charts.git", path: "redis", revision: "main" };
const clusterScoped = "operator.kyma-project.io/is-cluster-scoped";
const kyma = { group: "operator.kyma-project.io", version: "v1beta2" };

// A Module made before the webhook in a namespace of 48 characters: the operator named its release
// <namespace>-<11 characters>, 60 in all.
const longNamespace = "n".repeat(48);
const legacyModule = (): Kube => {
  const module = helmModule() as Kube;
  module.metadata.namespace = longNamespace;
  module.spec.helm.releaseName = `${longNamespace}-abcdefghijk`;
  return module;
};

const workspace = (): Kube => ({
  apiVersion: "batch.forkspacer.com/v1",
  kind: "Workspace",
  metadata: { name: "copy", namespace: "default" },
  spec: { type: "kubernetes", connection: { type: "in-cluster" }, from: { name: "w".repeat(300) } },
});

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
  {
    name: "Module: a 60-character releaseName; a template calling an undefined function, a second chart source",
    path: modulePath,
    gvk: moduleGvk,
    stored: legacyModule,
    update: (m) => {
      m.spec.helm.values.push({ raw: { banner: "{{ undefinedFunction .config.host }}" } });
      m.spec.helm.chart.git = { repo: "https://example.com/charts.git", path: "redis", revision: "main" };
    },
    introduced: [
      ["spec.helm.chart.git", "module.chart-source"],
      ["spec.helm.values[1].raw.banner", "module.template-function"],
    ],
    legacy: "spec.helm.releaseName",
  },
  {
    name: "ModuleTemplate: a spec.channel today's schema refuses; spec.version changed",
    path: "/validate-operator-kyma-project-io-v1beta2-moduletemplate",
    gvk: { ...kyma, kind: "ModuleTemplate", resource: "moduletemplates" },
    stored: () => {
      const template = kedaTemplate() as Kube;
      template.metadata.name = "keda-stable";
      template.spec.channel = "Fast-Track";
      return template;
    },
    update: (t) => {
      t.spec.version = "1.3.0";
    },
    introduced: [["spec.version", "moduletemplate.immutable-identity"]],
    legacy: "spec.channel",
  },
  {
    name: "ModuleReleaseMeta: a channel name shorter than the schema allows; that channel moved down",
    path: "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta",
    gvk: { ...kyma, kind: "ModuleReleaseMeta", resource: "modulereleasemetas" },
    stored: () => kedaReleaseMeta({ regular: "1.2.0", be: "1.3.0" }) as Kube,
    update: (m) => {
      m.spec.channels[1].version = "1.2.0";
    },
    introduced: [["spec.channels[1].version", "modulereleasemeta.channel-downgrade"]],
    legacy: "spec.channels[1].channel",
  },
  {
    name: "Workspace (replace mode): a 300-character spec.from.name; spec.connection changed",
    path: "/validate-batch-forkspacer-com-v1-workspace",
    gvk: { group: "batch.forkspacer.com", version: "v1", kind: "Workspace", resource: "workspaces" },
    stored: workspace,
    update: (w) => {
      w.spec.connection = { type: "kubeconfig", secretReference: { name: "kc", namespace: "default" } };
    },
    introduced: [["spec.connection", "workspace.connection-immutable"]],
    legacy: "spec.from.name",
  },
];

const changed = (object: Kube, edit: (object: Kube) => void): Kube => {
  const copy = structuredClone(object);
  edit(copy);
  return copy;
};

const labelAndFinalizer = (object: Kube) => {
  object.metadata.labels = { ...object.metadata.labels, team: "platform" };
  object.metadata.finalizers = ["example.com/cleanup"];
};

const ruleOf = (message: string) => /\(rule ([^)]+)\)$/.exec(message)?.[1] ?? "";
const sorted = (pairs: [string, string][]) => [...pairs].sort((a, b) => a.join().localeCompare(b.join()));

describe("updates that introduce a problem, denied naming exactly it, whatever old problems remain", () => {
  describe("through the live HTTPS server", () => {
    let server: LiveServer;
    before(async () => {
      server = await startLiveServer([
        createModuleKind(),
        createWorkspaceKind(),
        moduleTemplateKind,
        createModuleReleaseMetaKind(),
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
        if (c.legacy) {
          const shown = `already invalid before this update: ${c.legacy}: `;
          assert.ok(
            (response.warnings as string[]).some((w) => w.startsWith(shown)),
            JSON.stringify(response.warnings),
          );
        }
        const housekeeping = await post(changed(stored, c.housekeeping ?? labelAndFinalizer), stored);
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
        // A problem the CRD's CEL rule reports too is reported once, as the CEL error (issue 24); and
        // after a CEL error the API server calls no validating webhook, so validate reports none.
        const celErrors = findings.filter((f) => f.severity === "error" && f.rule.startsWith("cel/"));
        const celOnly = webhookRulesCelReports(celErrors);
        assert.ok(
          celOnly.every((rule) => c.introduced.some(([, introduced]) => introduced === rule)),
          denied.stdout,
        );
        const expected =
          celErrors.length > 0 ? [] : c.introduced.filter(([, rule]) => !celOnly.includes(rule));
        assert.deepEqual(sorted(webhookErrors), sorted(expected), denied.stdout);
        const admitted = await run(changed(stored, c.housekeeping ?? labelAndFinalizer), stored);
        assert.equal(admitted.code, 0, admitted.stdout);
      });
    }
  });

  it("ConfigMap/addon-operator: an update leaving an old problem is admitted, saying none of it takes effect", async () => {
    const modulesDir = writeTree({
      "001-mod-a/openapi/config-values.yaml": { type: "object", properties: { param: { type: "string" } } },
      "002-mod-b/openapi/config-values.yaml": { type: "object", properties: { size: { type: "integer" } } },
    });
    const kind = addonOperatorConfigMapKind({ modulesDir, configMap: defaultAddonConfigMap });
    const server = await startLiveServer([kind]);
    try {
      const stored = { modAEnabled: "true", modA: "param: 5\n", modBEnabled: "true", modB: "size: 3\n" };
      // addon-operator's own hook writes another section: admitted, or the ConfigMap would freeze.
      const reply = await reviewConfigMap(server, { ...stored, modB: "size: 4\n" }, stored);
      assert.equal(reply.allowed, true, reply.message);
      assert.ok(
        reply.warnings.includes(
          "addon-operator ignores the whole ConfigMap until data.modA is fixed: none of this change takes effect",
        ),
        JSON.stringify(reply.warnings),
      );
      // A new problem elsewhere is still denied, naming only itself.
      const worse = await reviewConfigMap(server, { ...stored, modB: "size: big\n" }, stored);
      assert.equal(worse.allowed, false);
      assert.deepEqual(
        worse.causes.map((cause) => cause.field),
        ["data.modB.size"],
      );
    } finally {
      await server.close();
    }
  });
});
