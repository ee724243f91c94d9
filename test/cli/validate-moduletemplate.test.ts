import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadAll } from "js-yaml";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { kedaTemplate } from "../support/moduletemplates.js";

const realTemplates = corpusPath("kyma/moduletemplates");

describe("validate: Kyma ModuleTemplates too", () => {
  it("admits a valid template and denies a bad one with the ModuleTemplate rules, on their lines", async () => {
    const bad = kedaTemplate();
    if (bad.spec.info?.icons?.[0]) bad.spec.info.icons[0].link = "not-a-url";
    bad.spec.resources = [{ name: "rawManifest", link: "/keda-manager.yaml" }];
    bad.metadata = {
      ...bad.metadata,
      name: "keda-bad",
      annotations: { "operator.kyma-project.io/is-cluster-scoped": "yes" },
    };
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
      errors.some((finding) => finding.message.startsWith("spec.resources[0].link: ")),
      run.stdout,
    );
    // spec.info's links only warn (moduletemplate.info-link): lifecycle-manager never reads them.
    assert.ok(
      jsonFindings(run).some(
        (finding) =>
          finding.severity === "warning" &&
          finding.rule === "validating-webhook/moduletemplate.info-link" &&
          finding.message.startsWith("spec.info.icons[0].link: "),
      ),
      run.stdout,
    );
    assert.ok(
      errors.some((finding) => finding.message.includes("operator.kyma-project.io/is-cluster-scoped")),
      run.stdout,
    );
    assert.ok(
      errors.every((finding) => (finding.line ?? 0) > 1),
      "findings sit on the second document's lines",
    );
    const clean = await validateCli(["-f", join(manifestDir({ "ok.yaml": [kedaTemplate()] }), "ok.yaml")]);
    assert.equal(clean.status, 0, clean.stdout);
  });

  it("admits all 75 real templates; each without spec.version cannot be resolved, and no other new warning", {
    skip: withoutCorpus,
  }, async () => {
    type Template = { metadata: { name: string }; spec: { version?: string; channel?: string } };
    const files = readdirSync(realTemplates).filter((file) => file.endsWith(".yaml"));
    const templates = files.flatMap((file) =>
      (loadAll(readFileSync(join(realTemplates, file), "utf8")) as Template[])
        .filter(Boolean)
        .map((template) => ({ file, template })),
    );
    assert.equal(templates.length, 75);
    const run = await validateCli(["-f", realTemplates, "-o", "json"]);
    assert.equal(run.status, 0, run.stdout);
    const findings = jsonFindings(run);
    assert.deepEqual(
      findings.filter((finding) => finding.severity !== "warning"),
      [],
    );
    const unversioned = templates.filter(({ template }) => !template.spec.version);
    assert.equal(unversioned.length, 37);
    for (const { file, template } of templates) {
      const warnings = findings
        .filter((finding) => finding.file === join(realTemplates, file))
        .filter((finding) => finding.object?.endsWith(`/${template.metadata.name}`))
        .map((finding) => finding.message);
      const unresolvable = warnings.filter((warning) => warning.includes("cannot be resolved"));
      assert.equal(unresolvable.length, template.spec.version ? 0 : 1, `${file}: ${warnings.join("; ")}`);
      // What warned before this rule set: deprecated channels, names lifecycle-manager never looks up,
      // and one v1beta1 field (spec.target) that v1beta2 does not know.
      const known =
        /^(spec\.channel is deprecated|metadata\.name is not "|unknown field "spec\.target"|spec\.version is not set: the template cannot be resolved)/;
      for (const warning of warnings) assert.match(warning, known, file);
    }
  });
});
