import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { splitCauseMessage } from "../../src/admission/field-errors.js";
import type { AdmissionResponse } from "../../src/admission/review.js";
import type { ModuleTemplate } from "../../src/generated/moduletemplate.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaTemplate, specExampleTemplates, templateReview } from "../support/moduletemplates.js";

const validatePath = "/validate-operator-kyma-project-io-v1beta2-moduletemplate";

describe("ModuleTemplate webhook over HTTPS", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  async function review(object: ModuleTemplate, oldObject?: ModuleTemplate): Promise<AdmissionResponse> {
    const operation = oldObject ? "UPDATE" : "CREATE";
    const reply = await server.post(validatePath, templateReview({ operation, object, oldObject }));
    assert.equal(reply.status, 200, reply.text);
    return reply.json.response;
  }

  /** The denial's causes as kubectl prints them (`field: message`), each rule's id (checked) cut off. */
  async function denial(object: ModuleTemplate, oldObject?: ModuleTemplate): Promise<string[]> {
    const response = await review(object, oldObject);
    assert.equal(response.allowed, false, "expected a denial");
    assert.equal(response.status?.code, 422);
    assert.equal(response.status?.reason, "Invalid");
    assert.match(
      response.status?.message ?? "",
      /^ModuleTemplate\.operator\.kyma-project\.io ".*" is invalid: /,
    );
    return (response.status?.details?.causes ?? []).map((cause) => {
      const { message, rule } = splitCauseMessage(cause.message);
      assert.match(rule ?? "", /^moduletemplate\./, cause.message);
      return `${cause.field}: ${message}`;
    });
  }

  async function warnings(object: ModuleTemplate, oldObject?: ModuleTemplate): Promise<string[]> {
    const response = await review(object, oldObject);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    for (const warning of response.warnings ?? []) assert.ok(warning.length <= 120, warning);
    return response.warnings ?? [];
  }

  it("admits every example of the spec; only the deprecated fields draw warnings", async () => {
    const examples = specExampleTemplates();
    assert.equal(examples.length, 8);
    for (const { title, template } of examples) {
      const expected = title.startsWith("channel")
        ? ["spec.channel is deprecated: ModuleTemplates are tied to versions now, not channels"]
        : title.startsWith("customStateCheck")
          ? ["spec.customStateCheck is deprecated: define custom states in the module's custom resource"]
          : [];
      assert.deepEqual(await warnings(template), expected, title);
    }
  });

  it("admits a template that sets every field, without warnings, on CREATE and on UPDATE", async () => {
    assert.deepEqual(await warnings(kedaTemplate()), []);
    assert.deepEqual(await warnings(kedaTemplate(), kedaTemplate()), []);
  });

  it("denies what Kyma's CRD denies: no descriptor, bad version, moduleName and channel", async () => {
    const template = kedaTemplate();
    delete (template.spec as Partial<ModuleTemplate["spec"]>).descriptor;
    template.spec.version = "v1.2";
    template.spec.moduleName = "Keda_Manager";
    template.spec.channel = "ab";
    const causes = await denial(template);
    assert.deepEqual(causes.map((cause) => cause.split(":")[0]).sort(), [
      "spec.channel",
      "spec.descriptor",
      "spec.moduleName",
      "spec.version",
    ]);
    assert.ok(causes.includes("spec.descriptor: Required value"), causes.join("\n"));
  });

  it("denies a mappedState that is not a Kyma state", async () => {
    const template = kedaTemplate();
    template.spec.customStateCheck = [
      { jsonPath: "status.health", value: "green", mappedState: "Healthy" as "Ready" },
    ];
    assert.deepEqual(await denial(template), [
      'spec.customStateCheck[0].mappedState: Unsupported value: "Healthy": supported values: "Ready", "Processing", "Error", "Deleting", "Warning"',
    ]);
  });

  it("denies contradicting state checks and jsonPaths that are not dotted paths", async () => {
    const template = kedaTemplate();
    template.spec.customStateCheck = [
      { jsonPath: "status.health", value: "green", mappedState: "Ready" },
      { jsonPath: "status.health", value: "green", mappedState: "Error" },
      { jsonPath: "{.status.state}", value: "ok", mappedState: "Ready" },
      { jsonPath: "", value: "ok", mappedState: "Ready" },
    ];
    assert.deepEqual(await denial(template), [
      'spec.customStateCheck[1].mappedState: Invalid value: "Error": contradicts spec.customStateCheck[0], which maps the same jsonPath and value to "Ready"',
      "spec.customStateCheck[2].jsonPath: Invalid value: \"{.status.state}\": must be a dotted field path such as status.health (no leading '.', '{}', '$', '[i]' or '*')",
      "spec.customStateCheck[3].jsonPath: Required value: a dotted field path, e.g. status.health",
    ]);
  });

  it("denies spec.data without a group/version apiVersion or a valid kind", async () => {
    const template = kedaTemplate();
    template.spec.data = { apiVersion: "v1", kind: "keda manager", spec: {} };
    assert.deepEqual(await denial(template), [
      'spec.data.apiVersion: Invalid value: "v1": must be in group/version form, e.g. "operator.kyma-project.io/v1alpha1" (a custom resource has a group)',
      "spec.data.kind: Invalid value: \"keda manager\": must be a valid kind name: at most 63 letters, digits or '-', starting with a letter and ending with a letter or digit (e.g. 'Keda')",
    ]);
    template.spec.data = { metadata: { name: "x" } };
    assert.deepEqual(await denial(template), [
      "spec.data.apiVersion: Required value: the group/version of the module's custom resource",
      "spec.data.kind: Required value: the kind of the module's custom resource",
    ]);
  });

  it("denies a manager without group, version, kind or name", async () => {
    const template = kedaTemplate();
    template.spec.manager = {
      version: "",
      kind: "Deployment",
      name: "",
    } as ModuleTemplate["spec"]["manager"];
    assert.deepEqual((await denial(template)).sort(), [
      "spec.manager.group: Required value",
      "spec.manager.name: Required value",
      "spec.manager.version: Required value",
    ]);
    template.spec.manager = { group: "", version: "v1", name: "x" } as ModuleTemplate["spec"]["manager"];
    assert.deepEqual(await denial(template), ["spec.manager.kind: Required value"]);
  });

  it("denies relative links and repeated names in icons and resources", async () => {
    const template = kedaTemplate();
    template.spec.info = {
      repository: "https://github.com/kyma-project/keda-manager",
      documentation: "docs/README.md",
      icons: [
        { name: "icon", link: "https://example.com/a.svg" },
        { name: "icon", link: "/b.svg" },
      ],
    };
    template.spec.resources = [
      { name: "rawManifest", link: "manifest.yaml" },
      { name: "rawManifest", link: "https://example.com/manifest.yaml" },
    ];
    const absolute = "must be an absolute http or https URL, e.g. https://example.com/path";
    assert.deepEqual(await denial(template), [
      `spec.info.documentation: Invalid value: "docs/README.md": ${absolute}`,
      'spec.info.icons[1].name: Duplicate value: "icon"',
      `spec.info.icons[1].link: Invalid value: "/b.svg": ${absolute}`,
      `spec.resources[0].link: Invalid value: "manifest.yaml": ${absolute}`,
      'spec.resources[1].name: Duplicate value: "rawManifest"',
    ]);
  });

  it('denies boolean operator.kyma-project.io labels other than "true" and "false"', async () => {
    const template = kedaTemplate();
    template.metadata = {
      ...template.metadata,
      labels: { "operator.kyma-project.io/sync": "no", "operator.kyma-project.io/internal": "TRUE" },
    };
    assert.deepEqual(await denial(template), [
      'metadata.labels[operator.kyma-project.io/sync]: Unsupported value: "no": supported values: "true", "false"',
      'metadata.labels[operator.kyma-project.io/internal]: Unsupported value: "TRUE": supported values: "true", "false"',
    ]);
  });

  it("reports every problem at once", async () => {
    const template = kedaTemplate();
    template.metadata = { name: "keda-1.2.0", labels: { "operator.kyma-project.io/beta": "1" } };
    template.spec.customStateCheck = [{ jsonPath: "status..state", value: "x", mappedState: "Ready" }];
    template.spec.data = { apiVersion: "v1", kind: "Keda" };
    template.spec.resources = [{ name: "rawManifest", link: "manifest.yaml" }];
    const response = await review(template);
    assert.deepEqual(
      response.status?.details?.causes?.map((cause) => cause.field),
      [
        "metadata.labels[operator.kyma-project.io/beta]",
        "spec.customStateCheck[0].jsonPath",
        "spec.data.apiVersion",
        "spec.resources[0].link",
      ],
    );
    assert.equal(response.warnings?.length, 1, "the deprecated customStateCheck still warns");
  });

  it("denies a lower spec.version on UPDATE, pre-releases included, and allows a higher one", async () => {
    const at = (version: string) => {
      const template = kedaTemplate();
      template.metadata = { name: `keda-${version}`, namespace: "kcp-system" };
      template.spec.version = version;
      return template;
    };
    assert.deepEqual(await denial(at("1.2.0-rc1"), at("1.2.0")), [
      'spec.version: Invalid value: "1.2.0-rc1": may not decrease (was "1.2.0"): a template\'s version is never decremented',
    ]);
    assert.deepEqual(await denial(at("1.2.0-alpha"), at("1.2.0-beta")), [
      'spec.version: Invalid value: "1.2.0-alpha": may not decrease (was "1.2.0-beta"): a template\'s version is never decremented',
    ]);
    assert.deepEqual(await warnings(at("1.2.0"), at("1.2.0-rc1")), []);
    assert.deepEqual(await warnings(at("1.10.0"), at("1.9.0")), []);
    // The same decrease on CREATE is no decrease: there is no old version.
    assert.deepEqual(await warnings(at("1.2.0-rc1")), []);
  });

  it("warns of deprecated fields, an ignored data status, a name the lifecycle manager will not find, and a moduleName without version", async () => {
    const template = kedaTemplate();
    template.metadata = { name: "keda-latest", namespace: "kcp-system" };
    template.spec.channel = "fast";
    template.spec.customStateCheck = [{ jsonPath: "status.health", value: "green", mappedState: "Ready" }];
    template.spec.data = { ...template.spec.data, status: { state: "Ready" } };
    assert.deepEqual(await warnings(template), [
      "spec.channel is deprecated: ModuleTemplates are tied to versions now, not channels",
      "spec.customStateCheck is deprecated: define custom states in the module's custom resource",
      "spec.data.status is ignored: the lifecycle manager creates spec.data without subresources",
      'metadata.name is not "keda-1.2.0" (<moduleName>-<version>), the name the lifecycle manager looks up',
    ]);
    const unversioned = kedaTemplate();
    unversioned.spec.version = "";
    assert.deepEqual(await warnings(unversioned), [
      "spec.moduleName is set without spec.version: templates are tied to versions, named <moduleName>-<version>",
    ]);
  });

  it("denies the README's example, examples/create-invalid-moduletemplate.json, on four fields", async () => {
    const example = JSON.parse(
      readFileSync(new URL("../../examples/create-invalid-moduletemplate.json", import.meta.url), "utf8"),
    );
    const reply = await server.post(validatePath, example);
    assert.equal(reply.json.response.uid, example.request.uid);
    assert.deepEqual(
      reply.json.response.status.details.causes.map((cause: { field: string }) => cause.field),
      [
        "metadata.labels[operator.kyma-project.io/sync]",
        "spec.customStateCheck[1].mappedState",
        "spec.data.apiVersion",
        "spec.resources[0].link",
      ],
    );
  });

  it("answers a Module sent to the ModuleTemplate path with 400, not a verdict", async () => {
    const reply = await server.post(
      validatePath,
      templateReview({ operation: "CREATE", object: { ...kedaTemplate(), kind: "Module" } }),
    );
    assert.equal(reply.json.response.allowed, false);
    assert.equal(reply.json.response.status.code, 400);
  });
});
