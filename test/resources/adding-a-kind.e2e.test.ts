import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { webhooksOf } from "../../src/admission/resource-kind.js";
import { createResourceKinds, kindRegistrations } from "../../src/resources/index.js";
import { loadSchemaSources } from "../../src/schema/schema-source.js";
import { writeTree } from "../support/addon-modules.js";
import { render } from "../support/chart.js";
import { withoutGo } from "../support/go-tools.js";

const root = new URL("../..", import.meta.url).pathname;
const kinds = (name: string) => {
  const registration = kindRegistrations.find((r) => r.name === name);
  // Every kind as serve builds it with every feature on (a modules dir for the ConfigMap).
  return registration?.create({ addonOperator: { "modules-dir": writeTree({}) } }) ?? [];
};

/** docs/adding-a-kind.md's checklist, for every registered kind. */
describe("every registered kind has what docs/adding-a-kind.md lists", () => {
  const sources = loadSchemaSources(join(root, "schemas"));
  let chartPaths: string[] = [];
  before(async () => {
    if (withoutGo) return;
    // The chart with every webhook on: replace mode, Kyma, addon-operator.
    const manifests = await render({
      forkspacer: { mode: "replace" },
      kyma: { webhook: { enabled: true } },
      addonOperator: { enabled: true, modulesVolume: { emptyDir: {} } },
    });
    chartPaths = manifests
      .filter((m) => m.kind.endsWith("WebhookConfiguration"))
      .flatMap((m) =>
        m.webhooks.map((w: { clientConfig: { service: { path: string } } }) => w.clientConfig.service.path),
      );
  });

  it("registers each kind once, every kind served built from its registration", () => {
    assert.deepEqual(
      kindRegistrations.map((r) => r.name),
      [...new Set(kindRegistrations.map((r) => r.name))],
    );
    assert.deepEqual(
      createResourceKinds({ addonOperator: { "modules-dir": writeTree({}) } }).map((k) => k.kind),
      kindRegistrations.flatMap((r) => kinds(r.name).map((k) => k.kind)),
    );
  });

  for (const registration of kindRegistrations) {
    describe(registration.title, () => {
      it("is built: its kinds declare exactly its registered rules", () => {
        const built = kinds(registration.name);
        assert.ok(built.length > 0);
        for (const kind of built) assert.deepEqual(kind.declarations, registration.rules);
      });

      it("has a schema source that gives its identity (a core kind has none)", () => {
        for (const kind of kinds(registration.name)) {
          if (kind.group === "") {
            assert.equal(registration.schema, undefined);
            continue;
          }
          const source = sources.find((s) => s.name === registration.schema);
          assert.ok(source, `no schemas/${registration.schema}.yaml`);
          assert.deepEqual(
            [kind.group, kind.version, kind.kind],
            [source.crd.group, source.crd.version, source.crd.names.kind],
          );
        }
      });

      it("has its webhook paths in the chart's webhook configurations", { skip: withoutGo }, () => {
        for (const kind of kinds(registration.name)) {
          for (const webhook of webhooksOf(kind)) {
            assert.ok(chartPaths.includes(webhook.path), `${webhook.path} not in the chart`);
          }
        }
      });

      it("has its section in docs/rules.md", () => {
        const doc = readFileSync(join(root, "docs/rules.md"), "utf8");
        assert.ok(doc.includes(`\n## ${registration.title}\n`), `no section ${registration.title}`);
      });

      it("has its folder of rules and its cases in the test suites", () => {
        assert.ok(existsSync(join(root, "src/resources", registration.name, "index.ts")));
        const tests = readdirSync(join(root, "test/resources", registration.name)).filter((file) =>
          file.endsWith(".test.ts"),
        );
        assert.ok(tests.length > 0, `no tests in test/resources/${registration.name}/`);
      });
    });
  }
});
