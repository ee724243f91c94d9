import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { validateSpec } from "../../../src/resources/module/spec-rules.js";
import { customModule, helmModule } from "../../support/modules.js";

const lines = (spec: Parameters<typeof validateSpec>[0]) => validateSpec(spec).map(formatFieldError);

describe("Module spec rules", () => {
  it("accepts a helm Module and a custom Module", () => {
    assert.deepEqual(lines(helmModule().spec), []);
    assert.deepEqual(lines(customModule().spec), []);
  });

  it("requires one of helm or custom, and refuses both", () => {
    const neither = customModule().spec;
    delete neither.custom;
    assert.deepEqual(lines(neither), [
      "spec: Required value: exactly one of spec.helm or spec.custom must be set (spec.source is the operator's old API)",
    ]);
    const both = helmModule().spec;
    both.custom = { image: "x" };
    assert.deepEqual(lines(both), ["spec.custom: Forbidden: may not be set together with spec.helm"]);
  });

  it("requires exactly one chart source and names each extra one", () => {
    const none = helmModule().spec;
    if (none.helm) none.helm.chart = {};
    assert.deepEqual(lines(none), [
      "spec.helm.chart: Required value: exactly one of repo, git or configMap must be set",
    ]);
    const three = helmModule().spec;
    if (three.helm) {
      three.helm.chart.git = { repo: "https://example.com/charts.git" };
      three.helm.chart.configMap = { name: "chart" };
    }
    assert.deepEqual(lines(three), [
      "spec.helm.chart.git: Forbidden: may not be set together with spec.helm.chart.repo",
      "spec.helm.chart.configMap: Forbidden: may not be set together with spec.helm.chart.repo",
    ]);
  });

  it("checks releaseName as a DNS-1035 label of at most 53 characters, reporting both problems", () => {
    const spec = helmModule().spec;
    const tooLongAndBad = `${"a".repeat(53)}-`;
    if (spec.helm) spec.helm.releaseName = tooLongAndBad;
    const errors = validateSpec(spec);
    assert.equal(errors.length, 2);
    assert.ok(errors.every((error) => error.field.toString() === "spec.helm.releaseName"));
    assert.match(formatFieldError(errors[0]!), /must be no more than 53 characters/);
    assert.match(formatFieldError(errors[1]!), /a DNS-1035 label must consist of lower case alphanumeric/);
  });

  for (const [name, valid] of [
    ["redis", true],
    ["a", true],
    ["prod-redis-primary", true],
    ["a".repeat(53), true],
    ["a".repeat(54), false],
    ["Foo", false],
    ["1redis", false],
    ["redis-", false],
    ["re_dis", false],
    ["re.dis", false],
    ["", false],
  ] as const) {
    it(`${valid ? "accepts" : "refuses"} release name ${JSON.stringify(name)}`, () => {
      const spec = helmModule().spec;
      if (spec.helm) spec.helm.releaseName = name;
      assert.equal(validateSpec(spec).length === 0, valid);
    });
  }

  it("checks an adopted release's name with Helm's own rule", () => {
    const spec = helmModule().spec;
    if (spec.helm) {
      delete spec.helm.releaseName;
      spec.helm.existingRelease = { name: "Redis!" };
    }
    assert.deepEqual(
      validateSpec(spec).map((error) => String(error.field)),
      ["spec.helm.existingRelease.name"],
    );
  });

  it("parses a git repo as the operator does (Go's url.Parse): an scp-like URL fails", () => {
    const spec = helmModule().spec;
    if (spec.helm) spec.helm.chart = { git: { repo: "git@github.com:org/charts.git", path: "redis" } };
    assert.deepEqual(lines(spec), [
      'spec.helm.chart.git.repo: Invalid value: "git@github.com:org/charts.git": parse "git@github.com:org/charts.git": first path segment in URL cannot contain colon (the operator parses it with Go\'s url.Parse; use ssh://git@host/org/repo.git)',
    ]);
    for (const repo of [
      "ssh://git@github.com/org/charts.git",
      "https://github.com/org/charts",
      "{{ .config.repo }}",
    ]) {
      if (spec.helm) spec.helm.chart = { git: { repo } };
      assert.deepEqual(lines(spec), [], repo);
    }
  });

  it("refuses git auth without httpsSecretRef, the only type the operator supports", () => {
    const spec = helmModule().spec;
    if (spec.helm) spec.helm.chart = { git: { repo: "https://github.com/org/charts", auth: {} } };
    assert.deepEqual(lines(spec), [
      "spec.helm.chart.git.auth.httpsSecretRef: Required value: the operator supports only httpsSecretRef: without it the install fails (unsupported Git chart authentication type provided)",
    ]);
    if (spec.helm)
      spec.helm.chart = {
        git: { repo: "https://github.com/org/charts", auth: { httpsSecretRef: { name: "s" } } },
      };
    assert.deepEqual(lines(spec), []);
  });

  it("refuses a template in existingRelease: adoption reads it unrendered", () => {
    const spec = helmModule().spec;
    if (spec.helm) spec.helm.existingRelease = { name: "redis", namespace: "{{ .config.env }}-apps" };
    assert.deepEqual(lines(spec), [
      'spec.helm.existingRelease.namespace: Invalid value: "{{ .config.env }}-apps": the operator adopts the release by this field unrendered: no release has this name',
    ]);
  });
});
