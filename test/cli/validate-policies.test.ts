import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";

const root = new URL("../..", import.meta.url).pathname;

/** `validate --policies`: the verdict of a cluster that runs the native policies without the webhook. */
describe("validate --policies", () => {
  it("denies what the policies deny, naming the policy layer and the rule; what only the webhook finds passes", async () => {
    const module = helmModule();
    module.spec.config = { ...module.spec.config, replicas: 7 };
    // A template only the webhook executes: a native verdict cannot see its error.
    if (module.spec.helm) module.spec.helm.namespace = "{{ nosuchfunction }}";
    const dir = manifestDir({ "module.yaml": [module] });
    const native = await validateCli(["--policies", "-o", "json", join(dir, "module.yaml")]);
    assert.equal(native.status, 1, native.stdout);
    assert.deepEqual(
      jsonFindings(native)
        .filter((f) => f.severity === "error")
        .map((f) => [f.rule, f.field]),
      [["validating-policy/module.config-value", "spec.config.replicas"]],
    );
    const webhook = await validateCli(["-o", "json", join(dir, "module.yaml")]);
    assert.ok(jsonFindings(webhook).some((f) => f.rule === "validating-webhook/module.template-function"));
  });

  it("reports the CRD's own rules at the CEL layer, and warnings of the policies bound Warn", async () => {
    const template = kedaTemplate();
    template.metadata = { ...template.metadata, labels: { "operator.kyma-project.io/beta": "yes" } };
    const module = helmModule();
    if (module.spec.helm) module.spec.helm.releaseName = "Bad_Name";
    const dir = manifestDir({ "objects.yaml": [template, module] });
    const run = await validateCli(["--policies", "-o", "json", join(dir, "objects.yaml")]);
    const findings = jsonFindings(run).map((f) => [f.severity, f.rule]);
    assert.deepEqual(findings, [
      ["warning", "validating-policy/moduletemplate.labels"],
      ["error", "cel/module.release-name"],
    ]);
    assert.match(jsonFindings(run)[1]?.message ?? "", /\(rule module\.release-name\)$/);
  });

  it("judges an UPDATE against --old: transition rules, and ratcheting as the webhook's", async () => {
    const stored = helmModule();
    stored.spec.config = { ...stored.spec.config, replicas: 7 };
    const hibernated = structuredClone(stored);
    hibernated.spec.hibernated = true;
    const renamed = structuredClone(stored);
    if (renamed.spec.helm) renamed.spec.helm.releaseName = "redis-other";
    const dir = manifestDir({
      "old.yaml": [stored],
      "hibernated.yaml": [hibernated],
      "renamed.yaml": [renamed],
    });
    const spared = await validateCli([
      "--policies",
      join(dir, "hibernated.yaml"),
      "--old",
      join(dir, "old.yaml"),
    ]);
    assert.equal(spared.status, 0, `an unchanged invalid value is spared: ${spared.stdout}`);
    const changed = await validateCli([
      "--policies",
      "-o",
      "json",
      join(dir, "renamed.yaml"),
      "--old",
      join(dir, "old.yaml"),
    ]);
    assert.equal(changed.status, 1);
    assert.ok(jsonFindings(changed).some((f) => /\(rule module\.release-name-immutable\)$/.test(f.message)));
  });

  it("shows the MutatingAdmissionPolicy's patch: the release name from metadata.name", async () => {
    const module = helmModule();
    if (module.spec.helm) delete module.spec.helm.releaseName;
    const dir = manifestDir({ "module.yaml": [module] });
    const run = await validateCli(["--policies", "--show-mutations", join(dir, "module.yaml")]);
    assert.equal(run.status, 0, run.stdout);
    assert.match(run.stdout, /patch: \[\{"op":"add","path":"\/spec\/helm\/releaseName","value":"redis"\}\]/);
  });

  it("turns a policy's binding to Warn or off with --rule-action, as the chart's ruleActions bind it", async () => {
    const run = await validateCli([
      "--policies",
      "--rule-action",
      "module.config-value=warn",
      "-o",
      "json",
      join(root, "examples/modules/redis.yaml"),
    ]);
    assert.equal(run.status, 0, run.stdout);
    assert.ok(
      jsonFindings(run).some(
        (f) => f.severity === "warning" && f.rule === "validating-policy/module.config-value",
      ),
    );
  });
});
