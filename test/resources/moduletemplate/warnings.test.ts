import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { warningText } from "../../../src/admission/warning.js";
import { FieldPath } from "../../../src/base/field-path.js";
import { moduleTemplateWarnings, templateWarnings } from "../../../src/resources/moduletemplate/warnings.js";
import { matchWarnings } from "../../support/match-warnings.js";
import { kedaTemplate } from "../../support/moduletemplates.js";

describe("ModuleTemplate warnings", () => {
  it("has none for the valid template", () => {
    assert.deepEqual(moduleTemplateWarnings(kedaTemplate()), []);
  });

  it("warns of each deprecated, ignored or misnamed thing, in at most 120 characters", () => {
    const template = kedaTemplate();
    template.metadata = { name: `keda-${"x".repeat(240)}` };
    template.spec.channel = "regular";
    template.spec.customStateCheck = [{ jsonPath: "status.health", value: "green", mappedState: "Ready" }];
    template.spec.data = { ...template.spec.data, status: { state: "Ready" } };
    matchWarnings(templateWarnings(template), [
      { rule: "moduletemplate.advice", field: "spec.channel", message: /^spec\.channel is deprecated/ },
      {
        rule: "moduletemplate.advice",
        field: "spec.customStateCheck",
        message: /^spec\.customStateCheck is ignored: lifecycle-manager no longer reads it/,
      },
      { rule: "moduletemplate.advice", field: "spec.data.status", message: /^spec\.data\.status is ignored/ },
      {
        rule: "moduletemplate.advice",
        field: "metadata.name",
        message: /^metadata\.name is not "keda-1\.2\.0" \(<moduleName>-<version>\)/,
      },
    ]);
  });

  it("warns that a template without spec.version cannot be resolved, with or without moduleName", () => {
    const template = kedaTemplate();
    template.spec.version = "";
    template.metadata = { name: "anything" };
    const unresolvable =
      "spec.version is not set: the template cannot be resolved by current lifecycle-manager (<moduleName>-<version>)";
    assert.deepEqual(moduleTemplateWarnings(template).map(warningText), [unresolvable]);
    template.spec.moduleName = undefined;
    assert.deepEqual(moduleTemplateWarnings(template).map(warningText), [unresolvable]);
  });

  it("leaves a name of the <moduleName>-<version> shape to the CREATE rule", () => {
    const template = kedaTemplate();
    template.metadata = { name: "keda-1.1.0" };
    assert.deepEqual(moduleTemplateWarnings(template), []);
  });

  it("does not warn of an empty channel (Go clients always write one)", () => {
    const template = kedaTemplate();
    template.spec.channel = "";
    template.spec.customStateCheck = [];
    assert.deepEqual(moduleTemplateWarnings(template), []);
  });

  it("warns that a Kyma listing a mandatory template's module fails, as lifecycle-manager's lookups refuse it", () => {
    const template = kedaTemplate();
    assert.deepEqual(templateWarnings(template), []);
    template.spec.mandatory = true;
    assert.deepEqual(templateWarnings(template), [
      {
        rule: "moduletemplate.mandatory",
        message: 'spec.mandatory is true: a Kyma that lists module "keda" fails ("no templates were found")',
        field: FieldPath.root("spec").child("mandatory"),
      },
    ]);
    // Unversioned (as KLM's own old mandatory templates): unresolvable already, one warning says so.
    template.spec.version = "";
    template.metadata = { name: "keda-mandatory" };
    assert.deepEqual(
      templateWarnings(template).map((warning) => warning.rule),
      ["moduletemplate.advice"],
    );
  });
});
