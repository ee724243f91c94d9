import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { formatFieldError } from "../../src/admission/field-errors.js";
import { crdRuleValidator } from "../../src/cel/crd-validator.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";
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

  it("requires exactly one of spec.helm and spec.custom, each message naming its rule", () => {
    const both = helmModule();
    both.spec.custom = { image: "x" };
    const neither = customModule();
    delete neither.spec.custom;
    assert.deepEqual(messages(both), [
      "spec.custom: Forbidden: may not be set together with spec.helm (rule module.source)",
    ]);
    assert.deepEqual(messages(neither), [
      "spec: Required value: exactly one of spec.helm or spec.custom must be set (rule module.source)",
    ]);
  });

  it("requires exactly one chart source, naming the extra one", () => {
    const two = helmModule();
    (two.spec.helm?.chart as Record<string, unknown>).git = { repo: "https://github.com/org/charts" };
    const three = structuredClone(two);
    (three.spec.helm?.chart as Record<string, unknown>).configMap = { name: "chart" };
    const none = helmModule();
    const noneChart = none.spec.helm?.chart as Record<string, unknown>;
    delete noneChart.repo;
    const git =
      "spec.helm.chart.git: Forbidden: may not be set together with spec.helm.chart.repo (rule module.chart-source)";
    assert.deepEqual(messages(two), [git]);
    assert.deepEqual(messages(three), [
      git,
      "spec.helm.chart.configMap: Forbidden: may not be set together with spec.helm.chart.repo (rule module.chart-source)",
    ]);
    assert.deepEqual(messages(none), [
      "spec.helm.chart: Required value: exactly one of repo, git or configMap must be set (rule module.chart-source)",
    ]);
  });

  it("keeps releaseName immutable once set, reported at spec.helm.releaseName", () => {
    const changed = helmModule();
    (changed.spec.helm as { releaseName?: string }).releaseName = "redis-other";
    const removed = helmModule();
    delete removed.spec.helm?.releaseName;
    const expected = [
      "spec.helm.releaseName: Invalid value: field is immutable once set (rule module.release-name-immutable)",
    ];
    assert.deepEqual(messages(changed, helmModule()), expected);
    assert.deepEqual(messages(removed, helmModule()), expected);
  });

  it("ratchets rules that do not read oldSelf on values an update left unchanged (KEP-4008), never transition rules", () => {
    const stored = helmModule();
    (stored.spec.helm as { releaseName?: string }).releaseName = "Redis";
    const nameRule =
      /^spec\.helm\.releaseName: Invalid value: "Redis": a DNS-1035 label .*\(rule module\.release-name\)$/;
    assert.match(messages(stored).join(), nameRule);
    const hibernated = structuredClone(stored);
    hibernated.spec.hibernated = true;
    assert.deepEqual(messages(hibernated, stored), [], "the name is unchanged");
    assert.equal(warnings(hibernated, stored).filter((m) => nameRule.test(m)).length, 1, "sent as a warning");
    const otherName = structuredClone(stored);
    (otherName.spec.helm as { releaseName?: string }).releaseName = "Other";
    const found = messages(otherName, stored);
    assert.ok(
      found.some((message) =>
        /^spec\.helm\.releaseName: Invalid value: "Other": a DNS-1035 label /.test(message),
      ),
      "a changed invalid value is checked",
    );
    assert.ok(found.some((message) => message.includes("(rule module.release-name-immutable)")));
  });

  it("spares an extra chart source an update left as it was (optionalOldSelf), as the webhook ratchets", () => {
    const stored = helmModule();
    (stored.spec.helm?.chart as Record<string, unknown>).git = { repo: "https://github.com/org/charts" };
    const otherRepo = structuredClone(stored);
    const otherChart = otherRepo.spec.helm?.chart as { repo: { url: string } };
    otherChart.repo.url = "https://charts.example.com";
    assert.deepEqual(messages(otherRepo, stored), [], "the extra git source is as before");
    const otherGit = structuredClone(stored);
    (otherGit.spec.helm?.chart as Record<string, unknown>).git = { repo: "https://github.com/org/other" };
    assert.equal(messages(otherGit, stored).length, 1, "a changed extra source is checked");
  });

  it("lets an unset releaseName be set, and skips transition rules without an old object", () => {
    const unnamed = helmModule();
    delete unnamed.spec.helm?.releaseName;
    assert.deepEqual(messages(helmModule(), unnamed), []);
    assert.deepEqual(messages(unnamed), []);
  });

  it("rejects a switch between helm and custom in both directions, at the field that changed", () => {
    const toCustom = customModule();
    toCustom.spec.workspace = helmModule().spec.workspace;
    assert.deepEqual(
      messages(toCustom, { ...helmModule(), spec: { ...helmModule().spec, config: undefined } }).filter((m) =>
        m.includes("source-immutable"),
      ),
      [
        "spec.helm: Invalid value: field cannot be removed once the object is created: a helm Module cannot become a custom Module (rule module.source-immutable)",
        "spec.custom: Invalid value: field cannot be added once the object is created: a helm Module cannot become a custom Module (rule module.source-immutable)",
      ],
    );
    assert.deepEqual(
      messages(helmModule(), customModule()).filter((m) => m.includes("source-immutable")),
      [
        "spec.helm: Invalid value: field cannot be added once the object is created: a custom Module cannot become a helm Module (rule module.source-immutable)",
        "spec.custom: Invalid value: field cannot be removed once the object is created: a custom Module cannot become a helm Module (rule module.source-immutable)",
      ],
    );
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
      /^spec: Invalid value: "object": no such key: absent evaluating rule: self\.absent == 1$/,
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

  it("a stored value of the wrong type fails a rule where the rule reads it, as the API server's conversion does", () => {
    const validator = crdRuleValidator({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            connection: { type: "object", properties: { type: { type: "string" } } },
            hibernated: { type: "boolean" },
            extra: { type: "object", properties: { name: { type: "string" } } },
          },
          "x-kubernetes-validations": [
            { rule: "has(self.extra) && self.extra.name != 'x'", message: "reads extra.name" },
            { rule: "self.connection == oldSelf.connection", message: "field is immutable" },
            { rule: "self.hibernated || !self.hibernated", message: "never fails" },
            { rule: "false || self.hibernated", message: "must be hibernated" },
          ],
        },
      },
    });
    const legacy = { spec: { connection: "text", hibernated: false, extra: { name: 5 } } };
    assert.deepEqual(validator(structuredClone(legacy), legacy).errors.map(formatFieldError), [
      'spec: Invalid value: "object": invalid data, expected string, got int64 evaluating rule: reads extra.name',
      'spec: Invalid value: "object": invalid data, expected a map for the provided schema with type=object evaluating rule: field is immutable',
    ]);
    assert.deepEqual(
      validator(structuredClone(legacy), legacy).warnings.map((w) => w.message),
      ["spec: Invalid value: must be hibernated"],
      "a rule that does not read the wrong value is judged (and ratcheted) as any other",
    );
  });
});
