import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { load } from "js-yaml";
import { parseRuleActions } from "../../src/admission/rule-actions.js";
import { moduleKind } from "../../src/resources/module/index.js";
import {
  type MetricsServer,
  registryCollector,
  startMetricsServer,
  WebhookMetrics,
} from "../../src/server/metrics.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { httpGet, sample } from "../support/metrics-text.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";

/** Every sample of one metric, as label sets with values. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split("\n")
    .map((line) => /^([a-z_:]+)\{(.*)\} (\S+)$/.exec(line))
    .filter((match): match is RegExpExecArray => match?.[1] === name)
    .map((match) => ({
      labels: Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])),
      value: Number(match[3]),
    }));
}

describe("metrics per rule: denials by rule, warnings by kind and rule", () => {
  let server: LiveServer;
  let metricsServer: MetricsServer;
  before(async () => {
    const metrics = new WebhookMetrics();
    // module.config-value only warns: the warn step of a warn → deny rollout.
    const ruleActions = parseRuleActions(["module.config-value=warn"]);
    server = await startLiveServer(undefined, { metrics, ruleActions });
    metricsServer = await startMetricsServer(0, registryCollector(metrics.registry), "127.0.0.1");
  });
  after(async () => {
    await server.close();
    await metricsServer.close();
  });

  it("a denial counts under each rule that denied it; a rule set to warn counts as a warning, not a denial", async () => {
    const badName = helmModule();
    if (badName.spec.helm) badName.spec.helm.releaseName = "Bad_Name";
    const tooMany = helmModule();
    tooMany.spec.config = { ...tooMany.spec.config, replicas: 9 };
    for (const object of [badName, badName, tooMany]) {
      await server.post(validatePath, admissionReview({ operation: "CREATE", object }));
    }
    const { text } = await httpGet(metricsServer.port, "/metrics");
    const denials = "module_admission_denials_total";
    assert.equal(sample(text, denials, { kind: "Module", rule: "module.release-name" }), 2);
    assert.equal(sample(text, denials, { kind: "Module", rule: "module.config-value" }), undefined);
    const warnings = samples(text, "module_admission_warnings_total");
    // The warning of a rule set to warn is counted under that rule.
    assert.deepEqual(warnings, [{ labels: { kind: "Module", rule: "module.config-value" }, value: 1 }]);
  });

  it("docs/operations.md's example alert rules parse and use these metrics with labels they have", async () => {
    const operations = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    const section = operations.slice(operations.indexOf("**Metrics per rule.**"));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const rules = (
      load(block.replace(/^ {2}/gm, "")) as { groups: { rules: { alert: string; expr: string }[] }[] }
    ).groups[0]?.rules;
    assert.equal(rules?.length, 2);
    const { text } = await httpGet(metricsServer.port, "/metrics");
    for (const rule of rules ?? []) {
      const [, metric] = /\b(module_admission_[a-z_]+)\b/.exec(rule.expr) ?? [];
      const present = samples(text, metric ?? "");
      assert.ok(present.length > 0, `${rule.alert}: ${metric} is exposed`);
      for (const label of rule.expr.match(/\b(kind|rule|cause)\b/g) ?? []) {
        assert.ok(
          present.every((s) => label in s.labels),
          `${rule.alert}: ${metric} has ${label}`,
        );
      }
    }
  });

  it("labels stay within the declared rule ids: an undeclared id in a message is `none`", () => {
    const metrics = new WebhookMetrics();
    const declared = moduleKind.rules ?? [];
    assert.ok(declared.includes("module.release-name"));
    metrics.denied(
      "Module",
      [
        { type: "FieldValueInvalid", rule: "module.release-name" },
        { type: "FieldValueInvalid", rule: "module.release-name" },
        { type: "FieldValueInvalid", rule: "attacker.chosen-id" },
        { type: "FieldValueRequired" },
      ],
      declared,
    );
    metrics.warned(
      "Module",
      [
        { rule: "module.release-name", message: 'spec.helm.releaseName: Invalid value: "X": ...' },
        { rule: "module.release-name", message: "another warning" },
        { rule: "attacker.chosen-id", message: "spec.x: something" },
        "a warning without a rule id",
      ],
      declared,
    );
    return metrics.registry.metrics().then((text) => {
      assert.deepEqual(
        samples(text, "module_admission_denials_total").map((s) => [s.labels.cause, s.labels.rule, s.value]),
        [
          ["FieldValueInvalid", "module.release-name", 1],
          ["FieldValueInvalid", "none", 1],
          ["FieldValueRequired", "none", 1],
        ],
      );
      assert.deepEqual(
        samples(text, "module_admission_warnings_total").map((s) => [s.labels.rule, s.value]),
        [
          ["module.release-name", 1],
          ["none", 1],
        ],
      );
      assert.ok(!text.includes("attacker"));
    });
  });
});
