import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { formatFieldError } from "../../src/admission/field-errors.js";
import { crdRuleValidator } from "../../src/cel/crd-validator.js";
import type { JsonSchema } from "../../src/codegen/schema-source.js";
import { customModule, helmModule } from "../support/modules.js";

/** The rules exactly as the generated CRD carries them to the API server. */
const crd = load(
  readFileSync(
    new URL("../../charts/module-admission/files/crds/modules.batch.forkspacer.com.yaml", import.meta.url),
    "utf8",
  ),
) as { spec: { versions: { schema: { openAPIV3Schema: JsonSchema } }[] } };
const openAPIV3Schema = crd.spec.versions[0]?.schema.openAPIV3Schema as JsonSchema;
const check = crdRuleValidator(openAPIV3Schema);
const messages = (object: unknown, oldObject?: unknown) =>
  check(object, oldObject).errors.map(formatFieldError);
const warnings = (object: unknown, oldObject?: unknown) =>
  check(object, oldObject).warnings.map((warning) => warning.message);

describe("CEL rules of the Module CRD", () => {
  it("admits valid helm and custom Modules, on create and on an unchanged update", () => {
    assert.deepEqual(messages(helmModule()), []);
    assert.deepEqual(messages(customModule()), []);
    assert.deepEqual(messages(helmModule(), helmModule()), []);
  });

  it("requires exactly one of spec.helm and spec.custom", () => {
    const both = helmModule();
    both.spec.custom = { image: "x" };
    const neither = customModule();
    delete neither.spec.custom;
    const expected = ["spec: Invalid value: exactly one of spec.helm or spec.custom must be set"];
    assert.deepEqual(messages(both), expected);
    assert.deepEqual(messages(neither), expected);
  });

  it("requires exactly one chart source", () => {
    const two = helmModule();
    const chart = two.spec.helm?.chart as Record<string, unknown>;
    chart.git = { repo: "https://github.com/org/charts" };
    const none = helmModule();
    const noneChart = none.spec.helm?.chart as Record<string, unknown>;
    delete noneChart.repo;
    const expected = [
      "spec.helm.chart: Invalid value: exactly one chart source must be set: repo, git or configMap",
    ];
    assert.deepEqual(messages(two), expected);
    assert.deepEqual(messages(none), expected);
  });

  it("keeps releaseName immutable once set, reported at spec.helm.releaseName", () => {
    const changed = helmModule();
    (changed.spec.helm as { releaseName?: string }).releaseName = "redis-other";
    const removed = helmModule();
    delete removed.spec.helm?.releaseName;
    const expected = ["spec.helm.releaseName: Invalid value: releaseName is immutable once set"];
    assert.deepEqual(messages(changed, helmModule()), expected);
    assert.deepEqual(messages(removed, helmModule()), expected);
  });

  it("ratchets rules that do not read oldSelf on values an update left unchanged (KEP-4008), never transition rules", () => {
    const stored = helmModule();
    (stored.spec.helm?.chart as Record<string, unknown>).git = { repo: "https://github.com/org/charts" };
    const chartRule =
      "spec.helm.chart: Invalid value: exactly one chart source must be set: repo, git or configMap";
    assert.deepEqual(messages(stored), [chartRule]);
    const hibernated = structuredClone(stored);
    hibernated.spec.hibernated = true;
    assert.deepEqual(messages(hibernated, stored), [], "the chart is unchanged");
    assert.deepEqual(warnings(hibernated, stored), [chartRule], "the API server sends it as a warning");
    const otherRepo = structuredClone(stored);
    (otherRepo.spec.helm?.chart as Record<string, unknown>).git = { repo: "https://github.com/org/other" };
    assert.deepEqual(messages(otherRepo, stored), [chartRule], "a changed invalid value is checked");
    const renamed = structuredClone(stored);
    (renamed.spec.helm as { releaseName?: string }).releaseName = "redis-other";
    assert.ok(
      messages(renamed, stored).includes(
        "spec.helm.releaseName: Invalid value: releaseName is immutable once set",
      ),
    );
  });

  it("lets an unset releaseName be set, and skips transition rules without an old object", () => {
    const unnamed = helmModule();
    delete unnamed.spec.helm?.releaseName;
    assert.deepEqual(messages(helmModule(), unnamed), []);
    assert.deepEqual(messages(unnamed), []);
  });

  it("rejects a switch between helm and custom in both directions", () => {
    assert.deepEqual(messages(customModule(), helmModule()), [
      "spec: Invalid value: a helm Module cannot become a custom Module",
    ]);
    assert.deepEqual(messages(helmModule(), customModule()), [
      "spec: Invalid value: a custom Module cannot become a helm Module",
    ]);
  });
});

describe("CEL rule evaluation", () => {
  const schemaWith = (rules: unknown[], properties: JsonSchema = {}): JsonSchema => ({
    type: "object",
    properties: { spec: { type: "object", "x-kubernetes-validations": rules, properties } },
  });

  it("treats integer fields as CEL ints and evaluates messageExpression", () => {
    const validator = crdRuleValidator(
      schemaWith(
        [{ rule: "self.replicas <= 5", messageExpression: "'too many: ' + string(self.replicas)" }],
        {
          replicas: { type: "integer" },
        },
      ),
    );
    assert.deepEqual(validator({ spec: { replicas: 3 } }), { errors: [], warnings: [] });
    assert.deepEqual(validator({ spec: { replicas: 7 } }).errors.map(formatFieldError), [
      "spec: Invalid value: too many: 7",
    ]);
  });

  it("reports a rule it cannot parse or a function it does not bind as not evaluated offline, never a verdict", () => {
    for (const rule of [
      "self.?x.orValue(1) == 1",
      "url(self.u).getHost() == 'a'",
      "self.l.all(i, v, v > 0)",
    ]) {
      const verdict = crdRuleValidator(schemaWith([{ rule }]))({ spec: { u: "https://x", l: [1] } });
      assert.deepEqual(verdict.errors, [], rule);
      assert.equal(verdict.warnings.length, 1, rule);
      assert.match(verdict.warnings[0]?.message ?? "", /not evaluated offline/, rule);
      assert.ok(verdict.warnings[0]?.message.includes(JSON.stringify(rule)), "the warning names the rule");
    }
  });

  it("evaluates the Kubernetes list and set functions it binds", () => {
    const validator = crdRuleValidator(
      schemaWith(
        [
          { rule: "self.l.isSorted() && self.l.sum() == 6 && self.l.max() == 3 && self.l.indexOf(2) == 1" },
          { rule: "sets.contains(self.l, [1, 3]) && !sets.intersects(self.l, [7])", message: "sets" },
          { rule: "isURL(self.u)", message: "url" },
        ],
        { l: { type: "array", items: { type: "integer" } }, u: { type: "string" } },
      ),
    );
    assert.deepEqual(validator({ spec: { l: [1, 2, 3], u: "https://example.com/x" } }), {
      errors: [],
      warnings: [],
    });
    assert.deepEqual(validator({ spec: { l: [3, 2, 1], u: "no url" } }).errors.map(formatFieldError), [
      "spec: Invalid value: failed rule: self.l.isSorted() && self.l.sum() == 6 && self.l.max() == 3 && self.l.indexOf(2) == 1",
      "spec: Invalid value: url",
    ]);
  });

  it("reports a rule that fails to evaluate as the API server does, never a throw", () => {
    const missing = crdRuleValidator(schemaWith([{ rule: "self.absent == 1" }]));
    const [error] = missing({ spec: {} }).errors;
    assert.match(
      formatFieldError(error as never),
      /^spec: Invalid value: "object": .* evaluating rule: self\.absent == 1$/,
    );
  });

  it("takes a rule for a transition rule when its syntax tree references oldSelf, not its text", () => {
    const validator = crdRuleValidator(
      schemaWith([{ rule: "'oldSelf' != self.name", message: "named" }], { name: { type: "string" } }),
    );
    assert.deepEqual(validator({ spec: { name: "oldSelf" } }).errors.map(formatFieldError), [
      "spec: Invalid value: named",
    ]);
  });

  it("finds rules deep in items and map values, past siblings that have none", () => {
    const positive = {
      type: "integer",
      "x-kubernetes-validations": [{ rule: "self > 0", message: "positive" }],
    };
    const validator = crdRuleValidator({
      type: "object",
      properties: {
        plain: { type: "object", properties: { a: { type: "string" } } },
        lists: { type: "array", items: { type: "object", properties: { n: positive } } },
        maps: { type: "object", additionalProperties: { type: "object", properties: { n: positive } } },
      },
    });
    const { errors } = validator({
      plain: { a: "x" },
      lists: [{ n: 1 }, { n: 0 }],
      maps: { first: { n: -1 }, second: { n: 2 } },
    });
    assert.deepEqual(errors.map(formatFieldError), [
      "lists[1].n: Invalid value: 0: positive",
      "maps.first.n: Invalid value: -1: positive",
    ]);
  });

  it("uses the rule's reason and a default message naming the rule", () => {
    const validator = crdRuleValidator(schemaWith([{ rule: "!has(self.x)", reason: "FieldValueForbidden" }]));
    const [error] = validator({ spec: { x: 1 } }).errors;
    assert.equal(error?.type, "forbidden");
    assert.equal(formatFieldError(error as never), "spec: Forbidden: failed rule: !has(self.x)");
  });

  it("correlates map-list items by key for transition rules, and not plain list items", () => {
    const item = {
      type: "object",
      "x-kubernetes-validations": [{ rule: "self.v == oldSelf.v", message: "immutable" }],
    };
    const validator = crdRuleValidator({
      type: "object",
      properties: {
        keyed: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["k"],
          items: item,
        },
        plain: { type: "array", items: item },
      },
    });
    const old = {
      keyed: [
        { k: "a", v: 1 },
        { k: "b", v: 1 },
      ],
      plain: [{ v: 1 }],
    };
    const now = {
      keyed: [
        { k: "b", v: 1 },
        { k: "a", v: 2 },
      ],
      plain: [{ v: 2 }],
    };
    assert.deepEqual(validator(now, old).errors.map(formatFieldError), [
      "keyed[1]: Invalid value: immutable",
    ]);
  });
});
