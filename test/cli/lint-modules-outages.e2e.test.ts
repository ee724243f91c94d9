import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { writeTree } from "../support/addon-modules.js";
import { builtCli } from "../support/built-cli.js";

interface Finding {
  severity: string;
  file: string;
  rule: string;
  message: string;
}

/** Outages that parse cleanly but stop addon-operator: each an error naming its file (the built command). */
describe("lint-modules (the built command): what stops addon-operator though every file parses", () => {
  const dir = writeTree({
    "values.yaml": 'goodEnabled: true\nstringFlagEnabled: "false"\nyesFlagEnabled: yes\nnullFlagEnabled:\n',
    "001-good/Chart.yaml": "name: good\n",
    // The relative ref resolves next to the schema, so the webhook can use it; addon-operator cannot.
    "002-relative-ref/openapi/config-values.yaml": {
      type: "object",
      properties: {
        a: { $ref: "defs.yaml#/a" },
        b: { $ref: "/abs/defs.yaml" },
        c: { $ref: "#/definitions/c" },
      },
      definitions: { c: { type: "string" } },
      enum: [{ $ref: "data, not a schema" }],
    },
    "002-relative-ref/openapi/defs.yaml": { a: { type: "string" } },
    "003-cel-not-a-list/openapi/config-values.yaml": {
      type: "object",
      "x-deckhouse-validations": { expression: "true", message: "m" },
    },
    "004-cel-entry/openapi/values.yaml": {
      type: "object",
      properties: { a: { type: "string", "x-deckhouse-validations": ["self != ''"] } },
    },
    "005-cel-syntax/openapi/config-values.yaml": {
      type: "object",
      properties: {
        a: { type: "integer", "x-deckhouse-validations": [{ expression: "self >", message: "bad" }] },
        b: { type: "integer", "x-deckhouse-validations": [{ expression: "self > 1", message: "fine" }] },
        c: {
          type: "array",
          "x-deckhouse-validations": [{ expression: "self.all(x, x > limit)", message: "m" }],
        },
      },
    },
  });
  const run = builtCli(["lint-modules", dir, "-o", "json"]);
  const findings = JSON.parse(run.stdout).findings as Finding[];
  const shown = (rule: string) =>
    findings.filter((f) => f.rule === rule).map((f) => [f.severity, f.file.slice(dir.length + 1), f.message]);

  it("exits 1", () => {
    assert.equal(run.status, 1, run.stderr);
  });

  it("a relative file $ref, naming the schema file (local refs, absolute paths and enum data are not)", () => {
    assert.deepEqual(shown("SchemaRef"), [
      [
        "error",
        "002-relative-ref/openapi/config-values.yaml",
        'openapi/config-values.yaml: $ref "defs.yaml#/a" is a relative file: addon-operator resolves it against its working directory, not this folder, and fails to load the module; use an absolute path',
      ],
    ]);
  });

  it("malformed x-deckhouse-validations: not a list, an entry not a map, a rule that does not compile", () => {
    const found = shown("DeckhouseValidations");
    assert.deepEqual(
      found.map(([severity, file]) => [severity, file]),
      [
        ["error", "003-cel-not-a-list/openapi/config-values.yaml"],
        ["error", "004-cel-entry/openapi/values.yaml"],
        ["error", "005-cel-syntax/openapi/config-values.yaml"],
        ["error", "005-cel-syntax/openapi/config-values.yaml"],
      ],
    );
    assert.match(
      String(found[0]?.[2]),
      /^openapi\/config-values\.yaml: celNotAList: x-deckhouse-validations invalid: addon-operator refuses every value of the module$/,
    );
    assert.match(
      String(found[1]?.[2]),
      /^openapi\/values\.yaml: celEntry\.a: x-deckhouse-validations invalid:/,
    );
    assert.match(
      String(found[2]?.[2]),
      /^openapi\/config-values\.yaml: celSyntax\.a: compile the 'self >' rule: /,
    );
    assert.equal(
      found[3]?.[2],
      "openapi/config-values.yaml: celSyntax.c: compile the 'self.all(x, x > limit)' rule: undeclared reference to 'limit': addon-operator refuses every value of the module",
    );
  });

  it("<module>Enabled that yaml.v3 does not read as a boolean in the modules dir's values.yaml: addon-operator panics", () => {
    assert.deepEqual(shown("EnabledFlag"), [
      [
        "error",
        "values.yaml",
        'values.yaml: stringFlagEnabled is "false", not a boolean: addon-operator\'s static extender panics at start',
      ],
      [
        "error",
        "values.yaml",
        'values.yaml: yesFlagEnabled is "yes", not a boolean: addon-operator\'s static extender panics at start',
      ],
      [
        "error",
        "values.yaml",
        "values.yaml: nullFlagEnabled is null, not a boolean: addon-operator's static extender panics at start",
      ],
    ]);
  });

  it("nothing about the module that is fine", () => {
    assert.deepEqual(
      findings.filter((f) => f.file.includes(join(dir, "001-good"))),
      [],
    );
  });
});

describe("lint-modules (the built command): static values judged with go-openapi's integers and enums", () => {
  it("2^53 is not an integer, null never matches an enum, 0o17 in a values file is 15", () => {
    const dir = writeTree({
      "001-counter/openapi/values.yaml": {
        type: "object",
        properties: {
          big: { type: "integer" },
          fine: { type: "integer" },
          mode: { enum: ["a", null] },
          mask: { type: "integer", maximum: 14 },
        },
      },
      "001-counter/values.yaml":
        "counter:\n  big: 9007199254740992\n  fine: 9007199254740991\n  mode: null\n  mask: 0o17\n",
    });
    const run = builtCli(["lint-modules", dir, "-o", "json"]);
    assert.equal(run.status, 1, run.stderr);
    assert.deepEqual((JSON.parse(run.stdout).findings as Finding[]).map((f) => f.message).sort(), [
      'counter.big in body must be of type integer: "number"',
      "counter.mask in body should be less than or equal to 14",
      "counter.mode in body should be one of [a <nil>]",
    ]);
  });
});
