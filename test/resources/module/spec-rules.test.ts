import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateSpec } from "../../../src/resources/module/spec-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { customModule, helmModule } from "../../support/modules.js";

describe("Module spec rules", () => {
  it("accepts a helm Module and a custom Module", () => {
    matchErrors(validateSpec(helmModule().spec), []);
    matchErrors(validateSpec(customModule().spec), []);
  });

  it("requires one of helm or custom, and refuses both", () => {
    const neither = customModule().spec;
    delete neither.custom;
    matchErrors(validateSpec(neither), [
      {
        type: "required",
        field: "spec",
        rule: "module.source",
        detail: "exactly one of spec.helm or spec.custom must be set (spec.source is the operator's old API)",
      },
    ]);
    const both = helmModule().spec;
    both.custom = { image: "x" };
    matchErrors(validateSpec(both), [
      {
        type: "forbidden",
        field: "spec.custom",
        rule: "module.source",
        detail: "may not be set together with spec.helm",
      },
    ]);
  });

  it("requires exactly one chart source and names each extra one", () => {
    const none = helmModule().spec;
    if (none.helm) none.helm.chart = {};
    matchErrors(validateSpec(none), [
      {
        type: "required",
        field: "spec.helm.chart",
        rule: "module.chart-source",
        detail: "exactly one of repo, git or configMap must be set",
      },
    ]);
    const three = helmModule().spec;
    if (three.helm) {
      three.helm.chart.git = { repo: "https://example.com/charts.git" };
      three.helm.chart.configMap = { name: "chart" };
    }
    const extra = (field: string) =>
      ({
        type: "forbidden",
        field,
        rule: "module.chart-source",
        detail: "may not be set together with spec.helm.chart.repo",
      }) as const;
    matchErrors(validateSpec(three), [extra("spec.helm.chart.git"), extra("spec.helm.chart.configMap")]);
  });

  it("checks releaseName as a DNS-1035 label of at most 53 characters, reporting both problems", () => {
    const spec = helmModule().spec;
    const tooLongAndBad = `${"a".repeat(53)}-`;
    if (spec.helm) spec.helm.releaseName = tooLongAndBad;
    const invalid = (detail: RegExp) =>
      ({
        type: "invalid",
        field: "spec.helm.releaseName",
        rule: "module.release-name",
        value: tooLongAndBad,
        detail,
      }) as const;
    matchErrors(validateSpec(spec), [
      invalid(/must be no more than 53 characters/),
      invalid(/^a DNS-1035 label must consist of lower case alphanumeric/),
    ]);
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
    matchErrors(validateSpec(spec), [
      {
        type: "invalid",
        field: "spec.helm.existingRelease.name",
        rule: "module.existing-release-name",
        value: "Redis!",
      },
    ]);
  });

  it("parses a git repo as the operator does (Go's url.Parse): an scp-like URL fails", () => {
    const spec = helmModule().spec;
    if (spec.helm) spec.helm.chart = { git: { repo: "git@github.com:org/charts.git", path: "redis" } };
    matchErrors(validateSpec(spec), [
      {
        type: "invalid",
        field: "spec.helm.chart.git.repo",
        rule: "module.git-url",
        value: "git@github.com:org/charts.git",
        detail:
          'parse "git@github.com:org/charts.git": first path segment in URL cannot contain colon (the operator parses it with Go\'s url.Parse; use ssh://git@host/org/repo.git)',
      },
    ]);
    for (const repo of [
      "ssh://git@github.com/org/charts.git",
      "https://github.com/org/charts",
      "{{ .config.repo }}",
    ]) {
      if (spec.helm) spec.helm.chart = { git: { repo } };
      matchErrors(validateSpec(spec), [], repo);
    }
  });

  it("refuses git auth without httpsSecretRef, the only type the operator supports", () => {
    const spec = helmModule().spec;
    if (spec.helm) spec.helm.chart = { git: { repo: "https://github.com/org/charts", auth: {} } };
    matchErrors(validateSpec(spec), [
      {
        type: "required",
        field: "spec.helm.chart.git.auth.httpsSecretRef",
        rule: "module.git-auth",
        detail:
          "the operator supports only httpsSecretRef: without it the install fails (unsupported Git chart authentication type provided)",
      },
    ]);
    if (spec.helm)
      spec.helm.chart = {
        git: { repo: "https://github.com/org/charts", auth: { httpsSecretRef: { name: "s" } } },
      };
    matchErrors(validateSpec(spec), []);
  });

  it("refuses a template in existingRelease: adoption reads it unrendered", () => {
    const spec = helmModule().spec;
    if (spec.helm) spec.helm.existingRelease = { name: "redis", namespace: "{{ .config.env }}-apps" };
    matchErrors(validateSpec(spec), [
      {
        type: "invalid",
        field: "spec.helm.existingRelease.namespace",
        rule: "module.existing-release-template",
        value: "{{ .config.env }}-apps",
        detail: "the operator adopts the release by this field unrendered: no release has this name",
      },
    ]);
  });
});
