import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkValues } from "../../../src/addon-operator/check-values.js";
import { hasDeckhouseValidations } from "../../../src/addon-operator/deckhouse-validations.js";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { warningText } from "../../../src/admission/warning.js";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import { addonOperatorConfigMapKind } from "../../../src/resources/addon-operator-configmap/index.js";
import {
  type LoadedSchemas,
  schemaStore,
} from "../../../src/resources/addon-operator-configmap/schema-store.js";
import {
  validateConfigMapData,
  validateConfigMapTransition,
} from "../../../src/resources/addon-operator-configmap/sections.js";
import { writeFiles, writeTree } from "../../support/addon-modules.js";

describe("schemaStore: files checked at most once per recheckMs", () => {
  it("sees a change only once recheckMs has passed since the last check, and keeps the load otherwise", () => {
    const modulesDir = writeTree({ "001-first/openapi/config-values.yaml": { type: "object" } });
    let clock = 0;
    const store = schemaStore({ modulesDir, recheckMs: 1000, now: () => clock });
    const first = store.current();
    assert.deepEqual([...first.modules.keys()], ["first"]);
    writeFiles(modulesDir, { "002-second/openapi/config-values.yaml": { type: "object" } });
    clock = 999;
    assert.equal(store.current(), first, "within recheckMs: not checked");
    clock = 1000;
    const second = store.current();
    assert.notEqual(second, first);
    assert.deepEqual([...second.modules.keys()], ["first", "second"]);
    clock = 5000;
    assert.equal(store.current(), second, "checked, unchanged: the same load (and its caches) stays");
  });

  it("with recheckMs 0 checks on every call", () => {
    const modulesDir = writeTree({ "001-first/openapi/config-values.yaml": { type: "object" } });
    const store = schemaStore({ modulesDir, recheckMs: 0, now: () => 0 });
    const first = store.current();
    assert.equal(store.current(), first);
    writeFiles(modulesDir, { "001-first/openapi/config-values.yaml": "type: [object\n" });
    assert.equal(store.current().modules.get("first")?.schema.state, "broken");
  });
});

describe("the ConfigMap kind's prepare: the modules read before its first review", () => {
  const configMap = { namespace: "d8-system", name: "deckhouse" };
  const review = async (kind: ReturnType<typeof addonOperatorConfigMapKind>, data: Record<string, string>) =>
    await kind.validator?.validate(
      { metadata: { ...configMap }, data },
      { request: { ...configMap } as AdmissionRequest, budget: new WorkBudget() },
    );
  const noModule = (verdict: Awaited<ReturnType<typeof review>>) =>
    JSON.stringify(verdict).includes('no module \\"second\\" in the modules dir');

  for (const prepared of [true, false]) {
    it(`${prepared ? "judges with the modules read when prepared" : "reads them on the first review otherwise"}`, async () => {
      const modulesDir = writeTree({ "001-first/openapi/config-values.yaml": { type: "object" } });
      const kind = addonOperatorConfigMapKind({ modulesDir, configMap, recheckMs: 3_600_000 });
      if (prepared) kind.prepare?.();
      // Added after prepare: a prepared kind read the modules before, and keeps them within recheckMs.
      writeFiles(modulesDir, { "002-second/openapi/config-values.yaml": { type: "object" } });
      assert.equal(noModule(await review(kind, { second: "{}\n" })), prepared);
    });
  }
});

const guarded = {
  type: "object",
  properties: {
    size: { type: "integer", maximum: 5 },
    name: {
      type: "string",
      "x-deckhouse-validations": [{ expression: "self == oldSelf", message: "name is immutable" }],
    },
  },
};

function loaded(): LoadedSchemas {
  const modulesDir = writeTree({
    "001-some-module/openapi/config-values.yaml": guarded,
    "002-off-module/openapi/config-values.yaml": {
      type: "object",
      properties: { size: { type: "integer" } },
    },
    "001-some-module/values.yaml": { someModuleEnabled: true },
    "002-off-module/values.yaml": { offModuleEnabled: false },
    "003-plain/Chart.yaml": { name: "plain" },
  });
  const globalHooksDir = writeTree({
    "openapi/config-values.yaml": {
      type: "object",
      required: ["project"],
      properties: { project: { type: "string" } },
    },
  });
  return schemaStore({ modulesDir, globalHooksDir, recheckMs: 0 }).current();
}

/** A verdict as JSON: what the webhook's answer is made of. */
const json = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("ConfigMap entry verdicts cached per schema load", () => {
  const datas: Record<string, unknown>[] = [
    { global: "project: p\n", someModule: "size: 3\n" },
    { global: "project: p\n", someModule: "size: 9\n" },
    { global: "project: p\n", someModule: "size: 9\n", someModuleEnabled: "false" },
    { global: "project: p\n", someModule: "size: 9\n", someModuleEnabled: "true" },
    { global: "project: p\n", someModule: "size: 9\n", someModuleEnabled: "maybe" },
    { global: "{}", offModule: "size: x\n" },
    { global: "{}", offModule: "size: x\n", offModuleEnabled: "true" },
    { global: "{}", offModule: "size: x\n", offModuleEnabled: "false" },
    { global: "[", someModule: "false", unknownModule: "a: 1\n", SomeModuleEnabled: "true" },
    { someModuleMaintenance: "Sometimes", plain: "a: 1\n", bad: 3, listy: "- 1\n" },
    { someModule: "size: 9\n", someModuleEnabled: "false" },
  ];

  it("agrees with a fresh load's verdict for every data, in any order, warm or cold", () => {
    const schemas = loaded();
    for (const round of [0, 1]) {
      for (const data of round === 0 ? datas : [...datas].reverse()) {
        const warm = validateConfigMapData(data, schemas, new WorkBudget());
        const cold = validateConfigMapData(data, { ...schemas }, new WorkBudget());
        assert.deepEqual(json(warm), json(cold), JSON.stringify(data));
      }
    }
  });

  it("a section's verdict follows <key>Enabled in the same ConfigMap", () => {
    const schemas = loaded();
    const on = validateConfigMapData({ someModule: "size: 9\n" }, schemas, new WorkBudget());
    assert.deepEqual(
      on.errors.map((error) => String(error.field)),
      ["data.someModule.size"],
    );
    const off = validateConfigMapData(
      { someModule: "size: 9\n", someModuleEnabled: "false" },
      schemas,
      new WorkBudget(),
    );
    assert.deepEqual(off.errors, []);
    assert.match(warningText(off.warnings[0] ?? ""), /module disabled/);
    const again = validateConfigMapData({ someModule: "size: 9\n" }, schemas, new WorkBudget());
    assert.deepEqual(json(again), json(on));
  });

  it("a reload judges the same text by the new schema", () => {
    const modulesDir = writeTree({ "001-some-module/openapi/config-values.yaml": { type: "object" } });
    const store = schemaStore({ modulesDir, recheckMs: 0 });
    const data = { someModule: "size: big\n", someModuleEnabled: "true" };
    assert.match(
      validateConfigMapData(data, store.current(), new WorkBudget()).errors[0]?.detail ?? "",
      /forbidden property/,
    );
    writeFiles(modulesDir, {
      "001-some-module/openapi/config-values.yaml": {
        type: "object",
        properties: { size: { type: "string" } },
      },
    });
    assert.deepEqual(validateConfigMapData(data, store.current(), new WorkBudget()).errors, []);
  });

  it("cached errors are frozen: a caller cannot change what the next review gets", () => {
    const schemas = loaded();
    const [error] = validateConfigMapData({ someModule: "size: 9\n" }, schemas, new WorkBudget()).errors;
    assert.ok(error && Object.isFrozen(error));
  });

  it("transition verdicts depend on both texts", () => {
    const schemas = loaded();
    const same = validateConfigMapTransition(
      { someModule: "name: a\n" },
      { someModule: "name: a\n" },
      schemas,
      new WorkBudget(),
    );
    assert.deepEqual(same.errors, []);
    const changed = validateConfigMapTransition(
      { someModule: "name: a\n" },
      { someModule: "name: b\n" },
      schemas,
      new WorkBudget(),
    );
    assert.deepEqual(
      changed.errors.map((error) => [String(error.field), error.detail]),
      [["data.someModule.name", "name is immutable"]],
    );
    const again = validateConfigMapTransition(
      { someModule: "name: a\n" },
      { someModule: "name: b\n" },
      schemas,
      new WorkBudget(),
    );
    assert.deepEqual(json(again), json(changed));
    const fresh = validateConfigMapTransition(
      { someModule: "name: a\n" },
      { someModule: "name: b\n" },
      { ...schemas },
      new WorkBudget(),
    );
    assert.deepEqual(json(fresh), json(changed));
  });
});

describe("hasDeckhouseValidations: whether runDeckhouseValidations can find a rule", () => {
  it("looks at the node and, recursively, its properties only, as the rules are run", () => {
    assert.equal(hasDeckhouseValidations(guarded), true);
    assert.equal(hasDeckhouseValidations({ type: "object", properties: { a: { type: "string" } } }), false);
    const rule = [{ expression: "self != oldSelf", message: "must change" }];
    const underItems = { type: "array", items: { type: "string", "x-deckhouse-validations": rule } };
    const underAllOf = { type: "object", allOf: [{ "x-deckhouse-validations": rule }] };
    for (const schema of [underItems, underAllOf]) {
      assert.equal(hasDeckhouseValidations(schema), false);
      const values = schema === underItems ? ["a"] : { a: 1 };
      assert.deepEqual(checkValues(values, schema, "m", { rules: "transition", oldValues: values }), []);
    }
    // A malformed list counts too: addon-operator refuses the values over it.
    assert.equal(
      hasDeckhouseValidations({ properties: { a: { "x-deckhouse-validations": "nonsense" } } }),
      true,
    );
  });
});
