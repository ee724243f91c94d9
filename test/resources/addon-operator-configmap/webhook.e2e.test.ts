import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addonOperatorConfigMapKind } from "../../../src/resources/addon-operator-configmap/index.js";
import { configMap, writeFiles, writeTree } from "../../support/addon-modules.js";
import { splitCauseMessage } from "../../support/cause-message.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";
import { admissionReview } from "../../support/reviews.js";

const path = "/validate-addon-operator-configmap";

// The global schema is the spec's own example (003, "Validation").
const globalSchema = {
  type: "object",
  additionalProperties: false,
  required: ["project", "clusterName"],
  minProperties: 2,
  properties: {
    project: { type: "string" },
    clusterName: { type: "string" },
    clusterHostname: { type: "string" },
    discovery: { type: "object" },
  },
};

const someModuleSchema = {
  type: "object",
  required: ["param1"],
  properties: {
    param1: { type: "string" },
    mode: { type: "string", enum: ["a", "b"] },
    replicas: { type: "integer", minimum: 1, maximum: 5, default: 2 },
    nested: { type: "object", default: {}, properties: { port: { type: "integer", default: 8080 } } },
    servers: {
      type: "array",
      items: {
        type: "object",
        required: ["host"],
        properties: { host: { type: "string", default: "localhost" } },
      },
    },
    open: { type: "object", additionalProperties: true, properties: { inner: { type: "object" } } },
    composed: {
      type: "object",
      properties: { a: { type: "object", additionalProperties: true } },
      allOf: [{ properties: { a: { properties: { inner: { type: "object" } } } } }],
    },
    pattern: { type: "string", pattern: "b+" },
    ratio: { type: "number", maximum: 1, exclusiveMaximum: true },
    host: { type: "string", format: "ipv4" },
    tags: { type: "array", uniqueItems: true, maxItems: 2, items: { type: "string" } },
    label: { type: "string", nullable: true },
  },
};

const guardedSchema = {
  type: "object",
  "x-deckhouse-validations": [
    { expression: "self.replicas <= self.maxReplicas", message: "replicas above maxReplicas" },
  ],
  properties: {
    replicas: { type: "integer", default: 1 },
    maxReplicas: { type: "integer", default: 3 },
    storageClass: {
      type: "string",
      "x-deckhouse-validations": [{ expression: "self == oldSelf", message: "storageClass is immutable" }],
    },
    stray: { type: "string", maxLength: 2 },
  },
};

/** The causes, each rule's id (checked) cut off its message. */
const causesOf = (reply: { json: { response: { status?: { details?: { causes?: unknown[] } } } } }) =>
  (
    (reply.json.response.status?.details?.causes ?? []) as {
      reason: string;
      field: string;
      message: string;
    }[]
  ).map((cause) => {
    const { message, rule } = splitCauseMessage(cause.message);
    assert.match(rule ?? "", /^addon-operator-configmap\./, cause.message);
    return { ...cause, message };
  });

describe("ConfigMap/addon-operator webhook over HTTPS", () => {
  let server: LiveServer;
  let modulesDir: string;
  const review = async (data: Record<string, string>, oldData?: Record<string, string>, name?: string) => {
    const object = configMap(data, name);
    const operation = oldData ? "UPDATE" : "CREATE";
    const oldObject = oldData ? configMap(oldData, name) : undefined;
    const body = admissionReview({
      operation,
      object,
      oldObject,
      group: "",
      kind: "ConfigMap",
      resource: "configmaps",
    });
    const reply = await server.post(path, body);
    assert.equal(reply.status, 200);
    return reply;
  };

  before(async () => {
    modulesDir = writeTree({
      "001-some-module/openapi/config-values.yaml": someModuleSchema,
      "002-guarded/openapi/config-values.yaml": guardedSchema,
      "003-no-schema/Chart.yaml": { name: "no-schema", version: "0.0.1" },
      // A file beside the modules, as deckhouse's modules/README.md: not a module, and no crash.
      "README.md": "# modules\n",
      // The static extender's flags: addon-operator validates only an enabled module's section.
      "values.yaml": {
        someModuleEnabled: true,
        guardedEnabled: true,
        noSchemaEnabled: true,
        lateModuleEnabled: true,
      },
    });
    const globalHooksDir = writeTree({ "openapi/config-values.yaml": globalSchema });
    const kind = addonOperatorConfigMapKind({
      modulesDir,
      globalHooksDir,
      // Check the files on every review: "reloads schemas when the files change" edits them between reviews.
      recheckMs: 0,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    });
    server = await startLiveServer([kind]);
  });
  after(() => server.close());

  const validGlobal = "project: p\nclusterName: c\n";

  it("denies the spec's invalid example: global lacks clusterName (the operator would stop at startup)", async () => {
    const reply = await review({ global: "project: myProject\n", someModule: "param1: value1\n" });
    assert.equal(reply.json.response.allowed, false);
    assert.equal(reply.json.response.status.code, 422);
    assert.match(reply.json.response.status.message, /^ConfigMap "addon-operator" is invalid: /);
    const causes = causesOf(reply);
    assert.deepEqual(
      causes.map((cause) => [cause.reason, cause.field]),
      [
        ["FieldValueInvalid", "data.global"],
        ["FieldValueRequired", "data.global.clusterName"],
      ],
    );
    assert.match(causes[0]?.message ?? "", /global in body should have at least 2 properties/);
    assert.match(causes[1]?.message ?? "", /global\.clusterName in body is required/);
  });

  it("admits a valid ConfigMap; an empty global and a module without schema are fine", async () => {
    const reply = await review({
      global: validGlobal,
      someModule: "param1: x\n",
      noSchema: "anything: [1, 2]\n",
    });
    assert.equal(reply.json.response.allowed, true, JSON.stringify(reply.json.response.status));
    const empty = await review({ global: "", noSchemaEnabled: "true" });
    assert.equal(
      empty.json.response.allowed,
      false,
      "the spec's global schema requires project and clusterName",
    );
  });

  it("admits other ConfigMaps untouched, and DELETE of this one", async () => {
    const other = await review({ global: "not: [valid" }, undefined, "some-other-config");
    assert.equal(other.json.response.allowed, true);
    assert.equal(other.json.response.warnings, undefined);
    const body = admissionReview({
      operation: "DELETE",
      oldObject: configMap({}),
      group: "",
      kind: "ConfigMap",
    });
    assert.equal((await server.post(path, body)).json.response.allowed, true);
  });

  it('accepts only "true"/"false" for <key>Enabled and NoResourceReconciliation or "" for <key>Maintenance', async () => {
    const good = await review({ global: validGlobal, someModuleEnabled: "false", someModuleMaintenance: "" });
    assert.equal(good.json.response.allowed, true);
    const bad = await review({
      global: validGlobal,
      someModuleEnabled: "yes",
      someModuleMaintenance: "Paused",
      guardedMaintenance: "NoResourceReconciliation",
    });
    assert.deepEqual(
      causesOf(bad).map((cause) => [cause.reason, cause.field]),
      [
        ["FieldValueNotSupported", "data.someModuleEnabled"],
        ["FieldValueNotSupported", "data.someModuleMaintenance"],
      ],
    );
    assert.match(
      causesOf(bad)[0]?.message ?? "",
      /Unsupported value: "yes": supported values: "true", "false"/,
    );
  });

  it('refuses module keys that do not round-trip, and scalar sections, pointing at <key>Enabled for "false"', async () => {
    const reply = await review({
      global: validGlobal,
      SomeModule: "a: 1\n",
      some_module: "a: 1\n",
      someModule: "false",
    });
    const causes = causesOf(reply);
    assert.deepEqual(
      causes.map((cause) => cause.field),
      ["data.SomeModule", "data.some_module", "data.someModule"],
    );
    assert.match(causes[0]?.message ?? "", /bad module name "SomeModule": must be camelCased/);
    assert.match(causes[2]?.message ?? "", /set someModuleEnabled: "false" instead/);
    const scalar = await review({ global: validGlobal, someModule: "42" });
    assert.match(causesOf(scalar)[0]?.message ?? "", /module config should be a YAML map or list/);
  });

  it("allows sections for modules not in the modules dir, with a warning", async () => {
    const reply = await review({ global: validGlobal, ghostModule: "a: 1\n" });
    assert.equal(reply.json.response.allowed, true);
    assert.deepEqual(reply.json.response.warnings, [
      'data.ghostModule: no module "ghost-module" in the modules dir; addon-operator ignores it',
    ]);
    assert.ok(reply.json.response.warnings[0].length <= 120);
  });

  it("closes the schema through properties and items, not below additionalProperties or into allOf", async () => {
    // Plain JSON Schema would admit every one of these extra keys: the schema never says additionalProperties.
    const reply = await review({
      global: validGlobal,
      someModule: "param1: x\nextra: 1\nnested: {port: 1, extra: 2}\nservers: [{host: h, extra: 3}]\n",
    });
    assert.deepEqual(
      causesOf(reply)
        .map((cause) => [cause.reason, cause.field, cause.message.replace(/^Forbidden: /, "")])
        .sort(),
      [
        ["FieldValueForbidden", "data.someModule.extra", "someModule.extra in body is a forbidden property"],
        [
          "FieldValueForbidden",
          "data.someModule.nested.extra",
          "someModule.nested.extra in body is a forbidden property",
        ],
        [
          "FieldValueForbidden",
          "data.someModule.servers[0].extra",
          "someModule.servers.extra in body is a forbidden property", // go-openapi names items without their index
        ],
      ],
    );
    const open = await review({
      global: validGlobal,
      someModule:
        "param1: x\nopen: {any: 1, inner: {free: 2}}\ncomposed: {a: {inner: {free: 3}}}\n$schema: x\nid: y\n",
    });
    assert.equal(open.json.response.allowed, true, JSON.stringify(open.json.response.status));
    // The property that holds allOf is itself closed: only what its own properties declare.
    const composed = await review({ global: validGlobal, someModule: "param1: x\ncomposed: {other: 1}\n" });
    assert.deepEqual(
      causesOf(composed).map((cause) => cause.field),
      ["data.someModule.composed.other"],
    );
  });

  it("applies defaults before checking: a required key with a default is never missing; null blocks a default", async () => {
    // servers[0] lacks the required host, which has a default: plain JSON Schema would deny it.
    const reply = await review({ global: validGlobal, someModule: "param1: x\nservers: [{}]\n" });
    assert.equal(reply.json.response.allowed, true, JSON.stringify(reply.json.response.status));
    // nested defaults to {} and then gets port 8080; a user's nested map merges over it, keeping the default port.
    const typed = await review({
      global: validGlobal,
      someModule: "param1: x\nnested: {port: '80'}\nreplicas: null\n",
    });
    assert.deepEqual(
      causesOf(typed)
        .map((cause) => cause.message.replace(/^Invalid value: [^:]+: /, ""))
        .sort(),
      [
        'someModule.nested.port in body must be of type integer: "string"',
        'someModule.replicas in body must be of type integer: "null"',
      ],
    );
  });

  it("reports keywords in go-openapi's wording", async () => {
    const reply = await review({
      global: validGlobal,
      someModule: [
        "param1: 5",
        "mode: c",
        "replicas: 3.0",
        "pattern: xbx",
        "ratio: 1",
        "host: 300.1.1.1",
        "tags: [a, a, b]",
        "label: null",
      ].join("\n"),
    });
    const messages = causesOf(reply).map((cause) => cause.message);
    const expected = [
      'someModule.param1 in body must be of type string: "number"',
      "someModule.mode in body should be one of [a b]",
      "someModule.ratio in body should be less than 1",
      'someModule.host in body must be of type ipv4: "300.1.1.1"',
      "someModule.tags in body should have at most 2 items",
      "someModule.tags in body shouldn't contain duplicates",
    ];
    assert.equal(messages.length, expected.length, messages.join("\n"));
    for (const [i, text] of expected.entries()) {
      assert.ok(messages[i]?.endsWith(text), `${messages[i]} should end with ${text}`);
    }
  });

  it("runs x-deckhouse-validations first and alone, with oldSelf on UPDATE", async () => {
    // Defaults take part: replicas 5 over the default maxReplicas 3 fails the rule; the maxLength error is not reported.
    const reply = await review({ global: validGlobal, guarded: "replicas: 5\nstray: toolong\n" });
    assert.deepEqual(
      causesOf(reply).map((cause) => [cause.field, cause.message]),
      [
        [
          "data.guarded",
          'Invalid value: {"maxReplicas":3,"replicas":5,"stray":"toolong"}: replicas above maxReplicas',
        ],
      ],
    );
    const create = await review({ global: validGlobal, guarded: "storageClass: fast\n" });
    assert.equal(create.json.response.allowed, true, "a transition rule does not run on CREATE");
    const update = await review(
      { global: validGlobal, guarded: "storageClass: slow\n" },
      { global: validGlobal, guarded: "storageClass: fast\n" },
    );
    assert.deepEqual(
      causesOf(update).map((cause) => cause.field),
      ["data.guarded.storageClass"],
    );
    assert.match(causesOf(update)[0]?.message ?? "", /storageClass is immutable/);
    const after = await review({ global: validGlobal, guarded: "stray: toolong\n" });
    assert.match(causesOf(after)[0]?.message ?? "", /guarded\.stray in body should be at most 2 chars long/);
  });

  it("reloads schemas when the files change", async () => {
    const before = await review({ global: validGlobal, noSchema: "size: big\n" });
    assert.equal(before.json.response.allowed, true);
    writeFiles(modulesDir, {
      "003-no-schema/openapi/config-values.yaml": {
        type: "object",
        properties: { size: { type: "integer" } },
      },
    });
    const afterAdd = await review({ global: validGlobal, noSchema: "size: big\n" });
    assert.match(
      causesOf(afterAdd)[0]?.message ?? "",
      /noSchema\.size in body must be of type integer: "string"/,
    );
    writeFiles(modulesDir, { "004-late-module/openapi/config-values.yaml": { type: "object" } });
    const late = await review({ global: validGlobal, lateModule: "x: 1\n" });
    assert.equal(late.json.response.warnings, undefined, "a new module directory is picked up");
    assert.match(causesOf(late)[0]?.message ?? "", /lateModule\.x in body is a forbidden property/);
    writeFiles(modulesDir, { "003-no-schema/openapi/config-values.yaml": "type: [object\n" });
    const broken = await review({ global: validGlobal, noSchema: "size: 1\n" });
    assert.match(causesOf(broken)[0]?.message ?? "", /openapi\/config-values\.yaml is not valid YAML/);
  });
});
