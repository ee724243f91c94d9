import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { moduleTemplateWarnings } from "../../../src/resources/moduletemplate/warnings.js";
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
    const warnings = moduleTemplateWarnings(template);
    assert.equal(warnings.length, 4, warnings.join("\n"));
    assert.match(warnings[0] ?? "", /^spec\.channel is deprecated/);
    assert.match(warnings[1] ?? "", /^spec\.customStateCheck is deprecated/);
    assert.match(warnings[2] ?? "", /^spec\.data\.status is ignored/);
    assert.match(warnings[3] ?? "", /^metadata\.name is not "keda-1\.2\.0" \(<moduleName>-<version>\)/);
    for (const warning of warnings) assert.ok(warning.length <= 120, warning);
  });

  it("warns of a moduleName without a version, and only compares names when both are set", () => {
    const template = kedaTemplate();
    template.spec.version = "";
    template.metadata = { name: "anything" };
    assert.deepEqual(moduleTemplateWarnings(template), [
      "spec.moduleName is set without spec.version: templates are tied to versions, named <moduleName>-<version>",
    ]);
  });

  it("does not warn of an empty channel (Go clients always write one)", () => {
    const template = kedaTemplate();
    template.spec.channel = "";
    template.spec.customStateCheck = [];
    assert.deepEqual(moduleTemplateWarnings(template), []);
  });
});
