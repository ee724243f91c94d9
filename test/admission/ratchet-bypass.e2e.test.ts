import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
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
 * The updates that got through before the structure gate was field-scoped: a stored object with one
 * unchanged violation of today's schema, and an update that adds problems the rules deny on CREATE.
 * Each was admitted with only an "already invalid before this update" warning.
 */
interface Bypass {
  name: string;
  path: string;
  gvk: { group: string; version: string; kind: string; resource: string };
  stored: () => Kube;
  update: (object: Kube) => void;
  /** What the denial must name: field and rule of each introduced problem, nothing else. */
  introduced: [field: string, rule: string][];
  /** The legacy problem, left as it was: a warning, never a cause. */
  legacy: string;
}

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

const kyma = { group: "operator.kyma-project.io", version: "v1beta2" };

const bypasses: Bypass[] = [
  {
    name: "Module: a 60-character releaseName; a template calling an undefined function, a second chart source",
    path: "/validate-batch-forkspacer-com-v1-module",
    gvk: { group: "batch.forkspacer.com", version: "v1", kind: "Module", resource: "modules" },
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

const updated = (bypass: Bypass): Kube => {
  const object = bypass.stored();
  bypass.update(object);
  return object;
};

const ruleOf = (message: string) => /\(rule ([^)]+)\)$/.exec(message)?.[1] ?? "";
const sorted = (pairs: [string, string][]) => [...pairs].sort((a, b) => a.join().localeCompare(b.join()));

describe("an old problem never switches off the other rules: the updates that got through, denied", () => {
  describe("through the live HTTPS server", () => {
    let server: LiveServer;
    before(async () => {
      server = await startLiveServer([
        createModuleKind() as ResourceKind,
        createWorkspaceKind() as ResourceKind,
        moduleTemplateKind as ResourceKind,
        createModuleReleaseMetaKind() as ResourceKind,
      ]);
    });
    after(() => server.close());

    for (const bypass of bypasses) {
      it(bypass.name, async () => {
        const post = async (object: Kube, oldObject: Kube) => {
          const operation = "UPDATE";
          const reply = await server.post(
            bypass.path,
            admissionReview({ operation, object, oldObject, ...bypass.gvk }),
          );
          assert.equal(reply.status, 200);
          return reply.json.response;
        };
        const stored = bypass.stored();
        const response = await post(updated(bypass), stored);
        assert.equal(response.allowed, false, JSON.stringify(response));
        assert.equal(response.status.code, 422);
        const causes = (response.status.details.causes as { field: string; message: string }[]).map(
          (cause): [string, string] => [cause.field, ruleOf(cause.message)],
        );
        assert.deepEqual(sorted(causes), sorted(bypass.introduced));
        assert.ok(
          (response.warnings as string[]).some((w) =>
            w.startsWith(`already invalid before this update: ${bypass.legacy}: `),
          ),
          JSON.stringify(response.warnings),
        );
        // The same object with a label added only (a controller's update) stays admitted.
        const labelled = structuredClone(stored);
        labelled.metadata.labels = { ...labelled.metadata.labels, team: "platform" };
        labelled.metadata.finalizers = ["example.com/cleanup"];
        const housekeeping = await post(labelled, stored);
        assert.equal(housekeeping.allowed, true, JSON.stringify(housekeeping));
      });
    }
  });

  describe("by `validate --old`, the built command", () => {
    let command: string;
    before(() => {
      command = buildCommand();
    });

    for (const bypass of bypasses) {
      it(bypass.name, async () => {
        const dir = manifestDir({ "new.yaml": [updated(bypass)], "old.yaml": [bypass.stored()] });
        const args = ["validate", "-f", join(dir, "new.yaml"), "--old", join(dir, "old.yaml"), "-o", "json"];
        const run = await promisify(execFile)(process.execPath, [command, ...args]).then(
          (done) => ({ code: 0, stdout: done.stdout }),
          (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
        );
        assert.equal(run.code, 1, run.stdout);
        const findings = (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
        const webhookErrors = findings
          .filter((f) => f.severity === "error" && f.rule.startsWith("validating-webhook/"))
          .map((f): [string, string] => [
            f.message.split(":")[0] ?? "",
            f.rule.replace("validating-webhook/", ""),
          ]);
        // A problem the CRD's CEL rule reports too is reported once, as the CEL error (issue 24); and
        // after a CEL error the API server calls no validating webhook, so validate reports none.
        const celErrors = findings.filter((f) => f.severity === "error" && f.rule.startsWith("cel/"));
        const celOnly = webhookRulesCelReports(celErrors);
        assert.ok(
          celOnly.every((rule) => bypass.introduced.some(([, introduced]) => introduced === rule)),
          run.stdout,
        );
        const expected =
          celErrors.length > 0 ? [] : bypass.introduced.filter(([, rule]) => !celOnly.includes(rule));
        assert.deepEqual(sorted(webhookErrors), sorted(expected), run.stdout);
      });
    }
  });

  it("ConfigMap/addon-operator: an update leaving an old problem is admitted, saying none of it takes effect", async () => {
    const modulesDir = writeTree({
      "001-mod-a/openapi/config-values.yaml": { type: "object", properties: { param: { type: "string" } } },
      "002-mod-b/openapi/config-values.yaml": { type: "object", properties: { size: { type: "integer" } } },
    });
    const kind = addonOperatorConfigMapKind({ modulesDir, configMap: defaultAddonConfigMap });
    const server = await startLiveServer([kind as ResourceKind]);
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
