import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { kedaTemplate } from "../support/moduletemplates.js";

describe("validate: Kyma ModuleTemplates too", () => {
  it("admits a valid template and denies a bad one with the ModuleTemplate rules, on their lines", async () => {
    const bad = kedaTemplate();
    if (bad.spec.info?.icons?.[0]) bad.spec.info.icons[0].link = "not-a-url";
    bad.metadata = { ...bad.metadata, name: "keda-bad", labels: { "operator.kyma-project.io/sync": "yes" } };
    const dir = manifestDir({ "templates.yaml": [kedaTemplate(), bad] });
    const run = await validateCli(["-f", join(dir, "templates.yaml"), "-o", "json"]);
    assert.equal(run.status, 1, run.stdout);
    const errors = jsonFindings(run).filter((finding) => finding.severity === "error");
    assert.ok(errors.length >= 2, run.stdout);
    assert.ok(
      errors.every((finding) => finding.object?.startsWith("ModuleTemplate kcp-system/keda-bad")),
      run.stdout,
    );
    assert.ok(
      errors.some((finding) => finding.message.startsWith("spec.info.icons[0].link: ")),
      run.stdout,
    );
    assert.ok(
      errors.some((finding) => finding.message.includes("operator.kyma-project.io/sync")),
      run.stdout,
    );
    assert.ok(
      errors.every((finding) => (finding.line ?? 0) > 1),
      "findings sit on the second document's lines",
    );
    const clean = await validateCli(["-f", join(manifestDir({ "ok.yaml": [kedaTemplate()] }), "ok.yaml")]);
    assert.equal(clean.status, 0, clean.stdout);
  });
});
