import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type FieldError, formatFieldError } from "../../src/admission/field-errors.js";
import { embeddedResourceErrors } from "../../src/apiextensions/embedded-object-meta.js";
import { listSetAndMapErrors } from "../../src/apiextensions/list-type.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { manifestDir } from "../support/cli.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { kedaTemplate } from "../support/moduletemplates.js";

const schema: JsonSchema = {
  type: "object",
  properties: {
    tags: {
      type: "array",
      "x-kubernetes-list-type": "set",
      items: { "x-kubernetes-preserve-unknown-fields": true },
    },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port", "protocol"],
      items: { type: "object" },
    },
    byName: {
      type: "object",
      additionalProperties: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", properties: { name: { type: "string" } } },
      },
    },
    template: {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    },
    templates: {
      type: "array",
      items: {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
      },
    },
  },
};
/** The strategy's embedded-resource and list-type checks, list types enforced on UPDATE only when the old object passed. */
const check = (object: unknown, old?: unknown): FieldError[] => [
  ...embeddedResourceErrors(schema, object),
  ...(old !== undefined && listSetAndMapErrors(schema, old).length > 0
    ? []
    : listSetAndMapErrors(schema, object)),
];
const messages = (object: unknown, old?: unknown) => check(object, old).map(formatFieldError);

describe("the API server's list-type checks (apiextensions listtype), for every CRD", () => {
  it('a set: each repeated item once, at its second index; 1 and "1" differ, objects compare by content', () => {
    assert.deepEqual(messages({ tags: ["a", "b", "a", "a", 1, "1", { x: 1, y: 2 }, { y: 2, x: 1 }] }), [
      'tags[2]: Duplicate value: "a"',
      'tags[7]: Duplicate value: {"x":1,"y":2}',
    ]);
  });

  it("a map list: keys by list-map-keys (an absent key is part of the key), shown as Go prints them", () => {
    assert.deepEqual(
      messages({
        ports: [
          { port: 80, protocol: "TCP" },
          { port: 80, protocol: "UDP" },
          { protocol: "TCP", port: 80, name: "x" },
          { port: 80 },
          { port: 80 },
        ],
        byName: { first: [{ name: "a" }, { name: "a" }, {}, null] },
      }),
      [
        'ports[2]: Duplicate value: {"port":80,"protocol":"TCP"}',
        'ports[4]: Duplicate value: {"port":80}',
        'byName[first][1]: Duplicate value: {"name":"a"}',
        "byName[first][3]: Duplicate value: {}",
      ],
    );
  });

  it("past the answer's 100 errors counts the rest without building them (issue 21)", () => {
    // 50,000 distinct values each twice in a set (50,000 duplicates), and 50,000 items with one key
    // in a map list (one: a value is reported at its second index only).
    const tags = Array.from({ length: 100_000 }, (_, i) => `t${i % 50_000}`);
    const ports = Array.from({ length: 50_000 }, () => ({ port: 80, protocol: "TCP" }));
    const found = check({ tags, ports });
    assert.equal(found.length, 100);
    assert.equal(formatFieldError(found[0] as FieldError), 'tags[50000]: Duplicate value: "t0"');
    assert.equal(found[99]?.omitted, 50_000 + 1 - 99);
    // Below the bound, every one as before.
    assert.equal(check({ tags: tags.slice(0, 50_099) }).length, 99);
  });

  it("a map list item that is not an object is the one error for that list", () => {
    assert.deepEqual(messages({ ports: [{ port: 1 }, "x", 3] }), [
      'ports[1]: Invalid value: "x": must be an object for an array of list-type map',
    ]);
  });

  it("on UPDATE, enforced only when the old object had no such duplicate (the API server's ratcheting)", () => {
    const twice = { tags: ["a", "a"] };
    assert.deepEqual(messages(twice, { tags: ["a"] }), ['tags[1]: Duplicate value: "a"']);
    assert.deepEqual(messages({ tags: ["a", "a", "b", "b"] }, twice), []);
  });
});

describe("the API server's checks inside x-kubernetes-embedded-resource (objectmeta, apimachinery ObjectMeta)", () => {
  it("apiVersion and kind required, a GroupVersion, a kind name", () => {
    assert.deepEqual(messages({ template: {} }), [
      "template.apiVersion: Required value",
      "template.kind: Required value",
    ]);
    assert.deepEqual(
      messages({
        templates: [
          { apiVersion: "a/b/c", kind: "9x" },
          { apiVersion: 1, kind: "" },
        ],
      }),
      [
        'templates[0].apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        "templates[0].kind: Invalid value: \"9x\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        "templates[1].apiVersion: Invalid value: 1: must be a string",
        'templates[1].kind: Invalid value: "": must not be empty',
      ],
    );
  });

  it("metadata: name and generateName as path segments, namespace a DNS-1123 label, label and annotation keys and values", () => {
    const base = { apiVersion: "v1", kind: "ConfigMap" };
    const shown = messages({
      template: {
        ...base,
        metadata: {
          name: "..",
          generateName: "a%",
          namespace: "Kyma_System",
          labels: { "example.com/ok": "fine", "Bad/key": "x", key: "not ok" },
          annotations: { "UPPER/Case": "any value at all", "a/b/c": "" },
        },
      },
    });
    assert.deepEqual(shown, [
      "template.metadata.generateName: Invalid value: \"a%\": may not contain '%'",
      "template.metadata.name: Invalid value: \"..\": may not be '..'",
      "template.metadata.namespace: Invalid value: \"Kyma_System\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      "template.metadata.labels: Invalid value: \"Bad/key\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "template.metadata.labels: Invalid value: \"not ok\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      "template.metadata.annotations: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
    assert.deepEqual(
      messages({ template: { ...base, metadata: { annotations: { a: "x".repeat(256 * 1024) } } } }),
      ["template.metadata.annotations: Too long: may not be more than 262144 bytes"],
    );
    assert.deepEqual(messages({ template: { ...base, metadata: { labels: { a: 1 } } } }), [
      'template.metadata: Invalid value: {"labels":{"a":1}}: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string',
    ]);
    assert.deepEqual(
      messages({ template: { ...base, metadata: { name: "Any.Case_name ok" } } }),
      [],
      "only '/' and '%' are refused in a name",
    );
  });
});

describe("validate (the built command): the API server's verdict offline", () => {
  it("refuses a ModuleReleaseMeta with one channel twice and a ModuleTemplate whose spec.data.metadata the API server refuses", () => {
    const meta = kedaReleaseMeta({ regular: "1.2.0", fast: "1.3.0" });
    meta.spec.channels?.push({ channel: "regular", version: "1.4.0" });
    const template = kedaTemplate();
    (template.spec.data as Record<string, unknown>).metadata = { name: "a/b", labels: { "app/": "x" } };
    const dir = manifestDir({ "kyma.yaml": [meta, template, kedaReleaseMeta()] });
    const run = builtCli(["validate", "-f", join(dir, "kyma.yaml"), "-o", "json"]);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.deepEqual(
      builtFindings(run)
        .filter((finding) => finding.severity === "error")
        .map((finding) => [finding.object, finding.rule, finding.message]),
      [
        [
          "ModuleReleaseMeta kcp-system/keda",
          "schema/FieldValueDuplicate",
          'spec.channels[2]: Duplicate value: {"channel":"regular"}',
        ],
        [
          "ModuleTemplate kcp-system/keda-1.2.0",
          "schema/FieldValueInvalid",
          "spec.data.metadata.name: Invalid value: \"a/b\": may not contain '/'",
        ],
        [
          "ModuleTemplate kcp-system/keda-1.2.0",
          "schema/FieldValueInvalid",
          'spec.data.metadata.labels: Invalid value: "app/": name part must be non-empty',
        ],
        [
          "ModuleTemplate kcp-system/keda-1.2.0",
          "schema/FieldValueInvalid",
          "spec.data.metadata.labels: Invalid value: \"app/\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
      ],
    );
  });
});
