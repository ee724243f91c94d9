import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { AdmissionResponse } from "../../src/admission/review.js";
import type { ModuleTemplate, ModuleTemplateSpec } from "../../src/generated/moduletemplate.js";
import { splitCauseMessage } from "../support/cause-message.js";
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

  const unresolvable =
    "spec.version is not set: the template cannot be resolved by current lifecycle-manager (<moduleName>-<version>)";

  it("admits every example of the spec; unversioned ones cannot be resolved, deprecated fields warn", async () => {
    const examples = specExampleTemplates();
    assert.equal(examples.length, 8);
    for (const { title, template } of examples) {
      const expected = title.startsWith("channel")
        ? ["spec.channel is deprecated: ModuleTemplates are tied to versions now, not channels", unresolvable]
        : title.startsWith("customStateCheck")
          ? [
              "spec.customStateCheck is ignored: lifecycle-manager no longer reads it; define states in the module's resource",
              unresolvable,
            ]
          : [unresolvable];
      assert.deepEqual(await warnings(template), expected, title);
    }
  });

  it("admits a template that sets every field, without warnings, on CREATE and on UPDATE", async () => {
    assert.deepEqual(await warnings(kedaTemplate()), []);
    assert.deepEqual(await warnings(kedaTemplate(), kedaTemplate()), []);
  });

  it("builds at most 50 link errors per list, the rest counted in one (issue 41)", async () => {
    // An UPDATE of 25,000 bad links in each object: 100,000 errors built and ratcheted before
    // (200-460 ms of CPU for 2.1 MB); the causes show what was built.
    const withLinks = (suffix: string) => {
      const template = kedaTemplate();
      template.spec.resources = Array.from({ length: 25_000 }, (_, i) => ({
        name: `r${i}`,
        link: `ftp://example.com/${i}${suffix}`,
      }));
      return template;
    };
    const causes = await denial(withLinks(""), withLinks(".old"));
    assert.equal(causes.length, 51, causes.slice(-3).join("\n"));
    assert.deepEqual(
      causes.slice(0, 2).map((cause) => cause.split(":")[0]),
      ["spec.resources[0].link", "spec.resources[1].link"],
    );
    assert.equal(
      causes.at(-1),
      "spec.resources: Invalid value: 24950 more items are not absolute http, https or oci URLs",
    );
  });

  it("denies what Kyma's CRD denies: no descriptor, bad version, moduleName and channel", async () => {
    const template = kedaTemplate();
    delete (template.spec as Partial<ModuleTemplateSpec>).descriptor;
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

  it("admits what Kyma's CRD admits: no spec, long lists, Kyma's every mappedState, a /path resource link", async () => {
    const bare = kedaTemplate() as Partial<ModuleTemplate>;
    delete bare.spec;
    assert.deepEqual(await warnings(bare as ModuleTemplate), [unresolvable]);
    const template = kedaTemplate();
    template.spec.associatedResources = Array.from({ length: 100 }, (_, i) => ({
      group: "keda.sh",
      version: "v1alpha1",
      kind: `Kind${i}`,
    }));
    template.spec.customStateCheck = [
      "Processing",
      "Deleting",
      "Ready",
      "Error",
      "",
      "Warning",
      "Unmanaged",
    ].map((mappedState, i) => ({ jsonPath: "status.state", value: String(i), mappedState }) as never);
    assert.deepEqual(await warnings(template), [
      "spec.customStateCheck is ignored: lifecycle-manager no longer reads it; define states in the module's resource",
    ]);
    const relative = kedaTemplate();
    relative.spec.resources = [{ name: "rawManifest", link: "keda.yaml" }];
    assert.deepEqual(await denial(relative), [
      'spec.resources[0].link: Invalid value: "keda.yaml": spec.resources[0].link in body must be of type uri: "keda.yaml"',
    ]);
    relative.spec.resources = [{ name: "rawManifest", link: "/keda.yaml" }];
    assert.deepEqual(await denial(relative), [
      'spec.resources[0].link: Invalid value: "/keda.yaml": must be an absolute http, https or oci URL, e.g. https://example.com/path',
    ]);
  });

  it("denies a mappedState that is not one of Kyma's states", async () => {
    const template = kedaTemplate();
    template.spec.customStateCheck = [
      { jsonPath: "status.health", value: "green", mappedState: "Healthy" as "Ready" },
    ];
    assert.deepEqual(await denial(template), [
      'spec.customStateCheck[0].mappedState: Unsupported value: "Healthy": supported values: "Processing", "Deleting", "Ready", "Error", "", "Warning", "Unmanaged"',
    ]);
  });

  it("no longer judges customStateCheck beyond its schema: contradictions and jsonPaths only warn that it is ignored", async () => {
    const template = kedaTemplate();
    template.spec.customStateCheck = [
      { jsonPath: "status.health", value: "green", mappedState: "Ready" },
      { jsonPath: "status.health", value: "green", mappedState: "Error" },
      { jsonPath: "{.status.state}", value: "ok", mappedState: "Ready" },
    ];
    assert.deepEqual(await warnings(template), [
      "spec.customStateCheck is ignored: lifecycle-manager no longer reads it; define states in the module's resource",
    ]);
  });

  it("admits a core-group spec.data, denies one no API server can serve or without a kind", async () => {
    const template = kedaTemplate();
    template.spec.data = { apiVersion: "v1", kind: "ConfigMap", data: { a: "b" } };
    assert.deepEqual(await warnings(template), []);
    template.spec.data = { apiVersion: "operator.kyma-project.io", kind: "keda manager", spec: {} };
    assert.deepEqual(await denial(template), [
      'spec.data.apiVersion: Invalid value: "operator.kyma-project.io": must be group/version (e.g. "operator.kyma-project.io/v1alpha1") or a core version such as "v1"',
      "spec.data.kind: Invalid value: \"keda manager\": must be a valid kind name: at most 63 letters, digits or '-', starting with a letter and ending with a letter or digit (e.g. 'Keda')",
    ]);
  });

  it("denies relative resource links and repeated names in icons and resources; spec.info's links only warn", async () => {
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
      { name: "rawManifest", link: "https://example.com/manifest.yaml" },
      { name: "rawManifest", link: "/manifest.yaml" },
    ];
    const absolute = "must be an absolute http, https or oci URL, e.g. https://example.com/path";
    assert.deepEqual(await denial(template), [
      'spec.info.icons[1].name: Duplicate value: "icon"',
      'spec.resources[1].name: Duplicate value: "rawManifest"',
      `spec.resources[1].link: Invalid value: "/manifest.yaml": ${absolute}`,
    ]);
    // lifecycle-manager never reads spec.info: its links warn (moduletemplate.info-link), documentation "" too.
    template.spec.info.documentation = "";
    template.spec.info.icons = [{ name: "icon", link: "/b.svg" }];
    template.spec.resources = [{ name: "rawManifest", link: "https://example.com/manifest.yaml" }];
    assert.deepEqual(
      (await warnings(template)).map((warning) => warning.split(":")[0]),
      ["spec.info.documentation", "spec.info.icons[0].link"],
    );
  });

  it("takes beta and internal in any case, warns about other values, and ignores sync and mandatory-module", async () => {
    const template = kedaTemplate();
    template.metadata = {
      ...template.metadata,
      labels: {
        "operator.kyma-project.io/beta": "True",
        "operator.kyma-project.io/internal": "TRUE",
        "operator.kyma-project.io/sync": "no",
        "operator.kyma-project.io/mandatory-module": "1",
      },
    };
    assert.deepEqual(await warnings(template), []);
    template.metadata.labels = { "operator.kyma-project.io/internal": "yes" };
    assert.deepEqual(await warnings(template), [
      'metadata.labels[operator.kyma-project.io/internal]: "yes" is neither true nor false: read as false',
    ]);
  });

  it("denies an is-cluster-scoped annotation other than exactly true or false", async () => {
    const template = kedaTemplate();
    template.metadata = {
      ...template.metadata,
      annotations: { "operator.kyma-project.io/is-cluster-scoped": "True" },
    };
    assert.deepEqual(await denial(template), [
      'metadata.annotations[operator.kyma-project.io/is-cluster-scoped]: Unsupported value: "True": supported values: "true", "false"',
    ]);
  });

  it("warns when the module-name label is not spec.moduleName", async () => {
    const template = kedaTemplate();
    template.metadata = { ...template.metadata, labels: { "operator.kyma-project.io/module-name": "kedas" } };
    assert.deepEqual(await warnings(template), [
      'module-name label "kedas" is not spec.moduleName "keda": lifecycle-manager lists the template by the label',
    ]);
  });

  it("denies on CREATE a <moduleName>-<version> name that disagrees with the spec; warns of a name of another shape", async () => {
    const template = kedaTemplate();
    template.spec.version = "1.2.1";
    const lookup = "lifecycle-manager finds the template by that name";
    assert.deepEqual(await denial(template), [
      `spec.version: Invalid value: "1.2.1": must be "1.2.0", as metadata.name "keda-1.2.0" (<moduleName>-<version>) says: ${lookup}`,
    ]);
    // Stored before the rule, such a template still takes updates that leave its identity alone.
    const labelled = { ...template, metadata: { ...template.metadata, labels: { team: "keda" } } };
    assert.deepEqual(await warnings(labelled, template), [
      `already invalid before this update: spec.version: Invalid value: "1.2.1": must be "1.2.0", as metadata.name "keda-1.2...`,
    ]);
    const latest = kedaTemplate();
    latest.metadata = { name: "keda-latest", namespace: "kcp-system" };
    assert.deepEqual(await warnings(latest), [
      'metadata.name is not "keda-1.2.0" (<moduleName>-<version>), the name the lifecycle manager looks up',
    ]);
  });

  it("denies a changed spec.version or spec.moduleName on UPDATE, and admits metadata-only updates", async () => {
    const old = kedaTemplate();
    const bumped = kedaTemplate();
    bumped.spec.version = "1.2.1";
    const causes = await denial(bumped, old);
    assert.ok(
      causes.includes(
        'spec.version: Invalid value: "1.2.1": field is immutable (was "1.2.0"): a new version is a new ModuleTemplate, named <moduleName>-<version>',
      ),
      causes.join("\n"),
    );
    const unversioned = kedaTemplate();
    unversioned.metadata = { name: "keda-regular", namespace: "kcp-system" };
    unversioned.spec.version = "";
    const versioned = { ...unversioned, spec: { ...unversioned.spec, version: "1.0.0" } };
    assert.deepEqual(await denial(versioned, unversioned), [
      'spec.version: Invalid value: "1.0.0": field is immutable (was ""): a new version is a new ModuleTemplate, named <moduleName>-<version>',
    ]);
    const finalized = kedaTemplate();
    finalized.metadata = {
      ...finalized.metadata,
      finalizers: ["operator.kyma-project.io/lifecycle-manager"],
    };
    assert.deepEqual(await warnings(finalized, kedaTemplate()), []);
  });

  it("tags each denial with the id of its rule, the key of --rule-action", async () => {
    const ruleOf = async (object: ModuleTemplate, oldObject?: ModuleTemplate) =>
      ((await review(object, oldObject)).status?.details?.causes ?? []).map(
        (cause) => splitCauseMessage(cause.message).rule,
      );
    const annotated = kedaTemplate();
    annotated.metadata = {
      ...annotated.metadata,
      annotations: { "operator.kyma-project.io/is-cluster-scoped": "1" },
    };
    assert.deepEqual(await ruleOf(annotated), ["moduletemplate.cluster-scoped"]);
    const renamed = kedaTemplate();
    renamed.spec.moduleName = "kedas";
    assert.deepEqual(await ruleOf(renamed), ["moduletemplate.name-matches-spec"]);
    const data = kedaTemplate();
    data.spec.data = { apiVersion: "a/b/c" };
    assert.deepEqual(await ruleOf(data), ["moduletemplate.data-api-version", "moduletemplate.data-kind"]);
    const links = kedaTemplate();
    links.spec.resources = [
      { name: "a", link: "/a" },
      { name: "a", link: "https://example.com/a" },
    ];
    assert.deepEqual(await ruleOf(links), ["moduletemplate.link", "moduletemplate.unique-name"]);
    const badCrd = kedaTemplate();
    badCrd.spec.version = "v1";
    assert.deepEqual(await ruleOf(badCrd), ["moduletemplate.schema"]);
    const bumped = { ...kedaTemplate(), metadata: { name: "keda-stable", namespace: "kcp-system" } };
    const moved = { ...bumped, spec: { ...bumped.spec, version: "1.3.0" } };
    assert.deepEqual(await ruleOf(moved, bumped), ["moduletemplate.immutable-identity"]);
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
        "metadata.annotations[operator.kyma-project.io/is-cluster-scoped]",
        "spec.version",
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
