import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkValues } from "../../../src/addon-operator/check-values.js";
import { loadModuleSchemas } from "../../../src/addon-operator/module-schemas.js";
import { addonOperatorConfigMapKind } from "../../../src/resources/addon-operator-configmap/index.js";
import { reviewConfigMap } from "../../support/addon-modules.js";
import { corpusPath, withoutCorpus } from "../../support/corpus.js";
import { type DeckhouseCase, loadDeckhouseCases } from "../../support/deckhouse-cases.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";

// deckhouse v1.43.1 read in place: 62 openapi-case-tests.yaml files with the verdicts deckhouse's own test asserts.
const deckhouse = corpusPath("addon-operator/deckhouse-v1.43.1");
const modulesDir = join(deckhouse, "modules");
const globalHooksDir = join(deckhouse, "global-hooks");

type Case = DeckhouseCase;
const loadCases = () => loadDeckhouseCases(modulesDir, globalHooksDir);

const label = (c: Case) => `${c.dir.split("/").pop()} ${c.verdict} ${c.kind}[${c.index}]`;

/**
 * Where addon-operator's runtime verdict differs from deckhouse's harness, with the source that makes it so.
 * Nothing else may disagree.
 */
const exceptions: Record<string, string> = {
  // validateNewKubeConfig (pkg/module_manager/module_manager.go) stores an empty section without validating
  // it (`len(moduleConfig.GetValues()) == 0`); deckhouse's harness validates {} and finds required keys missing.
  "303-prometheus-pushgateway negative configValues[0]":
    "{} is stored unvalidated (module_manager.go validateNewKubeConfig)",
  "500-okmeter negative configValues[1]":
    "{} is stored unvalidated (module_manager.go validateNewKubeConfig)",
  // addon-operator applies the values schema's defaults before validating values
  // (pkg/module_manager/models/modules/values_defaulting_transformers.go:30, validation.ApplyDefaults);
  // deckhouse's harness validates the bare case: kubeall's `default: {}` then lacks its required host.
  "600-flant-integration positive values[0]":
    "defaults applied first (values_defaulting_transformers.go:30): kubeall {} lacks required host",
  // global-hooks/openapi/values.yaml has $ref: /deckhouse/candi/openapi/cluster_configuration.yaml, a path in
  // deckhouse's image, not in this copy: spec.ExpandSchema fails (pkg/values/validation/schemas.go,
  // LoadSchemaFromBytes), so there is no values schema to judge with here.
  "global-hooks positive values[0]":
    "values schema $ref into deckhouse's image (schemas.go LoadSchemaFromBytes)",
  "global-hooks positive values[1]":
    "values schema $ref into deckhouse's image (schemas.go LoadSchemaFromBytes)",
  "global-hooks negative values[0]":
    "values schema $ref into deckhouse's image (schemas.go LoadSchemaFromBytes)",
  "global-hooks negative values[1]":
    "values schema $ref into deckhouse's image (schemas.go LoadSchemaFromBytes)",
};

describe("deckhouse v1.43.1's openapi cases, judged as addon-operator judges them", {
  skip: withoutCorpus,
}, () => {
  const cases = loadCases();
  let server: LiveServer;

  before(async () => {
    const kind = addonOperatorConfigMapKind({
      modulesDir,
      globalHooksDir,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    });
    server = await startLiveServer([kind]);
  });
  after(() => server.close());

  it("reads all of deckhouse's cases", () => {
    const count = (kind: Case["kind"]) => cases.filter((c) => c.kind === kind).length;
    assert.deepEqual(
      { configValues: count("configValues"), values: count("values"), helmValues: count("helmValues") },
      { configValues: 203, values: 113, helmValues: 3 },
    );
  });

  it("the live webhook on the modules dir (values.yaml and README.md inside) admits every positive configValues case as the module's section, denies every negative one", async () => {
    assert.ok(existsSync(join(modulesDir, "values.yaml")) && existsSync(join(modulesDir, "README.md")));
    const disagree: string[] = [];
    let judged = 0;
    for (const c of cases.filter((item) => item.kind === "configValues")) {
      // deckhouse's harness validates an enabled module; addon-operator validates only those.
      const enabled = c.key === "global" ? {} : { [`${c.key}Enabled`]: "true" };
      const reply = await reviewConfigMap(server, { [c.key]: JSON.stringify(c.values), ...enabled });
      assert.ok(reply.code === undefined || reply.code === 422, `${label(c)}: ${reply.message}`);
      judged++;
      if (reply.allowed !== (c.verdict === "positive")) disagree.push(label(c));
    }
    assert.equal(judged, 203);
    assert.deepEqual(
      disagree,
      Object.keys(exceptions).filter((key) => key.includes("configValues")),
    );
  });

  it("the values and helmValues cases, through the values check lint-modules uses, agree but for the listed exceptions", () => {
    const schemas = new Map<string, ReturnType<typeof loadModuleSchemas>>();
    const disagree: string[] = [];
    for (const c of cases.filter((item) => item.kind !== "configValues")) {
      if (!schemas.has(c.dir)) schemas.set(c.dir, loadModuleSchemas(c.dir));
      const prepared = schemas.get(c.dir);
      const schema = c.kind === "values" ? prepared?.values : prepared?.helm;
      // Without a schema there is no verdict to compare: that counts as a disagreement unless listed.
      const admitted = schema && checkValues(c.values, schema, c.key).length === 0;
      if (schema === undefined || admitted !== (c.verdict === "positive")) disagree.push(label(c));
    }
    assert.deepEqual(
      disagree.sort(),
      Object.keys(exceptions)
        .filter((key) => !key.includes("configValues"))
        .sort(),
    );
  });
});
