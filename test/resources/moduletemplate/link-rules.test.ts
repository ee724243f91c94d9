import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateLinks } from "../../../src/resources/moduletemplate/link-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { kedaTemplate } from "../../support/moduletemplates.js";

describe("links and names in spec.info and spec.resources", () => {
  it("accepts the valid template", () => {
    assert.deepEqual(validateLinks(kedaTemplate().spec), []);
  });

  it("accepts an oci:// link, as lifecycle-manager's own notes write charts", () => {
    const { spec } = kedaTemplate();
    spec.resources = [{ name: "chart", link: "oci://europe-docker.pkg.dev/kyma-project/charts/keda:2.14.0" }];
    assert.deepEqual(validateLinks(spec), []);
  });

  it("denies every link that is not an absolute http(s) URL, and repeated names, all at once", () => {
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
    const absolute = "must be an absolute http, https or oci URL, e.g. https://example.com/path";
    const link = (field: string, value: string, detail: string) =>
      ({ type: "invalid", field, rule: "moduletemplate.link", value, detail }) as const;
    const unique = (field: string, value: string) =>
      ({ type: "duplicate", field, rule: "moduletemplate.unique-name", value }) as const;
    matchErrors(validateLinks(spec), [
      link("spec.info.repository", "github.com/kyma-project/keda-manager", absolute),
      link("spec.info.documentation", "/docs/keda", absolute),
      unique("spec.info.icons[1].name", "icon"),
      link("spec.info.icons[1].link", "ftp://example.com/b.svg", absolute),
      unique("spec.resources[1].name", "rawManifest"),
      link("spec.resources[1].link", "https://exa mple.com/x", "must be a valid URL"),
    ]);
  });
});
