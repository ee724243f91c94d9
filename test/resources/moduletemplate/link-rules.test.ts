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

  it("spares bad links an UPDATE kept without judging the old object: the same link, the same problem", async () => {
    // Another field changed, so the spec is not kept whole: each link is looked up in the old object.
    const template = kedaTemplate();
    template.spec.resources = Array.from({ length: 2_000 }, (_, i) => ({
      name: `r${i}`,
      link: `ftp://example.com/manifests/${i}.yaml`,
    }));
    const old = structuredClone(template);
    old.spec.channel = "before";
    const spent = async (review: ReturnType<typeof templateReview>) => {
      const budget = new WorkBudget();
      assert.ok(review.request);
      return { answer: await validate(moduleTemplateKind, review.request, { budget }), units: budget.spent };
    };
    const created = await spent(templateReview({ operation: "CREATE", object: template }));
    const updated = await spent(templateReview({ operation: "UPDATE", object: template, oldObject: old }));
    assert.equal(created.answer.allowed, false);
    assert.equal(updated.answer.allowed, true, updated.answer.status?.message);
    assert.ok(updated.answer.warnings?.some((warning) => warning.includes("spec.resources[0].link")));
    // Judging the old object too spent about twice the CREATE's units.
    assert.ok(updated.units < 1.5 * created.units, `${updated.units} against ${created.units} units`);
  });
});
