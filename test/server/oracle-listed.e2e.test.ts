import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { dump } from "js-yaml";
import { webhookPath } from "../../src/admission/resource-kind.js";
import { addonOperatorConfigMapKind } from "../../src/resources/addon-operator-configmap/index.js";
import { moduleKind } from "../../src/resources/module/index.js";
import { reviewConfigMap, writeTree } from "../support/addon-modules.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { manifestDir } from "../support/cli.js";
import { listedFailures } from "../support/listed-failures.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaReleaseMeta, releaseMetaReview } from "../support/modulereleasemetas.js";
import { kedaTemplate, templateReview } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";

/**
 * Each disagreement issue 33 lists, through the real HTTPS server and the built `validate` (for
 * addon-operator's ConfigMap, `lint-modules` on a modules dir): what the operators certainly fail on is
 * denied, what they run is admitted. The differential tests check each against the operators' Go.
 */
describe("issue 33's listed disagreements, through the live server and the built CLI", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  for (const { name, module } of listedFailures) {
    it(`Forkspacer, denied by the live webhook: ${name}`, async () => {
      const reply = await server.post(
        webhookPath(moduleKind, "validate"),
        admissionReview({ operation: "CREATE", object: module }),
      );
      assert.equal(reply.status, 200);
      assert.equal(reply.json.response.allowed, false, JSON.stringify(reply.json.response.warnings));
      assert.ok((reply.json.response.status?.details?.causes ?? []).length > 0);
    });
  }

  it("Forkspacer, denied by validate: every listed Module is an error, the command exits 1", () => {
    const dir = manifestDir({ "modules.yaml": listedFailures.map(({ module }) => module) });
    const run = builtCli(["validate", "-f", join(dir, "modules.yaml"), "-o", "json"]);
    assert.equal(run.status, 1, run.stderr);
    const denied = new Set(
      builtFindings(run)
        .filter((f) => f.severity === "error")
        .map((f) => f.object),
    );
    for (const { name, module } of listedFailures)
      assert.ok(
        [...denied].some((object) => object?.includes(String(module.metadata?.name))),
        name,
      );
  });

  it("validate --yaml gitops reads an unquoted date as kustomize writes it, 2025-01-01T00:00:00Z", () => {
    const dir = manifestDir({
      "module.yaml": `${dump({
        ...listedFailures[0]?.module,
        config: undefined,
        spec: { ...listedFailures[0]?.module.spec },
      }).replace("metadata:\n", "metadata:\n  annotations:\n    since: 2025-01-01\n")}`,
    });
    const run = builtCli(["validate", "--yaml", "gitops", "-f", join(dir, "module.yaml"), "-o", "json"]);
    const messages = builtFindings(run).map((f) => f.message);
    assert.ok(
      messages.some(
        (m) =>
          m.includes('"2025-01-01T00:00:00Z" under YAML 1.2') && m.includes('"2025-01-01" under YAML 1.1'),
      ),
      messages.join("\n"),
    );
  });

  it("Kyma: a ModuleReleaseMeta named too long for any <name>-<version> template gets a warning (webhook and validate)", async () => {
    const meta = kedaReleaseMeta({ regular: "1.2.0" });
    meta.metadata = { name: "k".repeat(250), namespace: "kcp-system" };
    const reply = await server.post(
      "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta",
      releaseMetaReview({ operation: "CREATE", object: meta }),
    );
    assert.equal(reply.json.response.allowed, true);
    const warnings: string[] = reply.json.response.warnings ?? [];
    assert.ok(
      warnings.some((w) => /^spec\.channels\[0\]\.version: no ModuleTemplate can be named "k+/.test(w)),
      warnings.join("\n"),
    );
    const dir = manifestDir({ "mrm.yaml": [meta] });
    const run = builtCli(["validate", "-f", join(dir, "mrm.yaml"), "-o", "json"]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.ok(
      builtFindings(run).some(
        (f) => f.severity === "warning" && f.message.includes("no ModuleTemplate can be named"),
      ),
    );
  });

  it("Kyma: an oci:// link is admitted (webhook and validate)", async () => {
    const template = kedaTemplate();
    template.spec.resources = [
      { name: "chart", link: "oci://europe-docker.pkg.dev/kyma-project/charts/keda:2.14.0" },
    ];
    const reply = await server.post(
      "/validate-operator-kyma-project-io-v1beta2-moduletemplate",
      templateReview({ operation: "CREATE", object: template }),
    );
    assert.equal(reply.json.response.allowed, true, JSON.stringify(reply.json.response.status));
    const dir = manifestDir({ "template.yaml": [template] });
    const run = builtCli(["validate", "-f", join(dir, "template.yaml"), "-o", "json"]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.deepEqual(
      builtFindings(run).filter((f) => f.rule === "moduletemplate.link"),
      [],
    );
  });
});

describe("issue 33's addon-operator disagreement: idTokenTTL \"\" fails cel-go's duration()", () => {
  // user-authn's rule in deckhouse v1.76, on a modules dir of one module.
  const modules = writeTree({
    "150-user-authn/openapi/config-values.yaml": {
      type: "object",
      properties: {
        idTokenTTL: {
          type: "string",
          pattern: "^([0-9]+h)?([0-9]+m)?([0-9]+s)?$",
          "x-deckhouse-validations": [
            { expression: "duration(self) >= duration('1m')", message: "idTokenTTL must be at least 1m" },
          ],
        },
      },
    },
    "150-user-authn/Chart.yaml": { name: "user-authn", version: "0.1.0" },
  });
  let server: LiveServer;
  before(async () => {
    const kind = addonOperatorConfigMapKind({
      modulesDir: modules,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    });
    server = await startLiveServer([kind]);
  });
  after(() => server.close());

  it("the live webhook denies the ConfigMap that addon-operator refuses, admits a valid TTL", async () => {
    const empty = await reviewConfigMap(server, { userAuthn: 'idTokenTTL: ""', userAuthnEnabled: "true" });
    assert.equal(empty.allowed, false, empty.message);
    assert.match(empty.message, /type conversion error from 'string' to 'google\.protobuf\.Duration'/);
    const valid = await reviewConfigMap(server, { userAuthn: "idTokenTTL: 10m", userAuthnEnabled: "true" });
    assert.equal(valid.allowed, true, valid.message);
  });

  it("lint-modules refuses a module whose static values set it (its values schema extends the config schema)", () => {
    const dir = writeTree({
      "values.yaml": { userAuthnEnabled: true },
      "150-user-authn/values.yaml": { userAuthn: { idTokenTTL: "" } },
      "150-user-authn/openapi/values.yaml": { type: "object", "x-extend": { schema: "config-values.yaml" } },
      "150-user-authn/openapi/config-values.yaml": {
        type: "object",
        properties: {
          idTokenTTL: {
            type: "string",
            "x-deckhouse-validations": [
              { expression: "duration(self) >= duration('1m')", message: "at least 1m" },
            ],
          },
        },
      },
    });
    const run = builtCli(["lint-modules", dir, "-o", "json"]);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.ok(
      builtFindings(run).some((f) => f.severity === "error" && /google\.protobuf\.Duration/.test(f.message)),
      run.stdout,
    );
  });
});
