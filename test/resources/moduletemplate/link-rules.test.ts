import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validate } from "../../../src/admission/handler.js";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import { moduleTemplateKind } from "../../../src/resources/moduletemplate/index.js";
import { infoLinkWarnings, validateLinks } from "../../../src/resources/moduletemplate/link-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { kedaTemplate, templateReview } from "../../support/moduletemplates.js";

describe("links and names in spec.info and spec.resources", () => {
  it("accepts the valid template", () => {
    assert.deepEqual(validateLinks(kedaTemplate().spec, new WorkBudget()), []);
  });

  it("accepts an oci:// link, as lifecycle-manager's own notes write charts", () => {
    const { spec } = kedaTemplate();
    spec.resources = [{ name: "chart", link: "oci://europe-docker.pkg.dev/kyma-project/charts/keda:2.14.0" }];
    assert.deepEqual(validateLinks(spec, new WorkBudget()), []);
  });

  it("denies every resource link that is not an absolute http(s) URL, and repeated names, all at once; spec.info's links only warn", () => {
    const { spec } = kedaTemplate();
    spec.info = {
      repository: "github.com/kyma-project/keda-manager",
      documentation: "/docs/keda",
      icons: [
        { name: "icon", link: "https://example.com/a.svg" },
        { name: "icon", link: "ftp://example.com/b.svg" },
      ],
    };
    spec.resources = [
      { name: "rawManifest", link: "https://example.com/manifest.yaml" },
      { name: "rawManifest", link: "https://exa mple.com/x" },
    ];
    const link = (field: string, value: string, detail: string) =>
      ({ type: "invalid", field, rule: "moduletemplate.link", value, detail }) as const;
    const unique = (field: string, value: string) =>
      ({ type: "duplicate", field, rule: "moduletemplate.unique-name", value }) as const;
    matchErrors(validateLinks(spec, new WorkBudget()), [
      unique("spec.info.icons[1].name", "icon"),
      unique("spec.resources[1].name", "rawManifest"),
      link("spec.resources[1].link", "https://exa mple.com/x", "must be a valid URL"),
    ]);
    assert.deepEqual(
      infoLinkWarnings(spec).map((warning) => warning.field.toString()),
      ["spec.info.repository", "spec.info.documentation", "spec.info.icons[1].link"],
    );
  });

  it('admits spec.info.documentation "" with a warning: lifecycle-manager never reads spec.info (issue 43)', async () => {
    const template = kedaTemplate();
    template.spec.info = { ...template.spec.info, documentation: "" } as typeof template.spec.info;
    const request = templateReview({ operation: "CREATE", object: template }).request;
    assert.ok(request);
    const answer = await validate(moduleTemplateKind, request);
    assert.equal(answer.allowed, true, answer.status?.message);
    assert.ok(answer.warnings?.some((warning) => warning.startsWith('spec.info.documentation: "": ')));
  });
});
