import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { writeTree } from "../support/addon-modules.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";

const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;

function lint(...args: string[]) {
  const run = spawnSync(process.execPath, ["--import", "tsx", main, "lint-modules", ...args], {
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface Finding {
  severity: string;
  file: string;
  rule: string;
  message: string;
  object?: string;
}

const configValues = {
  type: "object",
  title: "From config-values",
  "x-doc": "copied",
  required: ["host"],
  properties: { host: { type: "string" }, port: { type: "integer", default: 80 } },
};

describe("module-admission lint-modules", () => {
  let findings: Finding[];
  let status: number | null;
  const about = (directory: string) =>
    findings
      .filter((finding) => finding.file.includes(`/${directory}`))
      .map((f) => `${f.severity} ${f.rule}: ${f.message}`);

  before(() => {
    const dir = writeTree({
      "001-module1/values.yaml": { module1: { a: 1 } },
      "002-prometheus-operator/Chart.yaml": "name: x\n",
      "003-cert-manager-crd/values.yaml": { certManagerCrd: {} },
      "004-l2-load-balancer/Chart.yaml": "name: x\n",
      "005-module-one01/Chart.yaml": "name: x\n",
      "010-module_one/Chart.yaml": "name: x\n",
      "011-a--b/Chart.yaml": "name: x\n",
      "012-foo-1/Chart.yaml": "name: x\n",
      "013-a-b-c/Chart.yaml": "name: x\n",
      "020-twin/Chart.yaml": "name: x\n",
      "021-twin/Chart.yaml": "name: x\n",
      ".hidden/Chart.yaml": "name: x\n",
      // addon-operator's own examples set <module>Enabled in the module's values.yaml (the static extender reads it).
      "030-extra-keys/values.yaml": { extraKeys: { a: 1 }, extraKeysEnabled: true, global: { b: 2 } },
      "031-scalar-values/values.yaml": { scalarValues: "false" },
      "032-bad-schema/openapi/config-values.yaml": "type: [object\n",
      // x-extend: host and port come from config-values; port's default fills it; required is parent-first.
      "040-extended/openapi/config-values.yaml": configValues,
      "040-extended/openapi/values.yaml": {
        "x-extend": { schema: "config-values.yaml" },
        type: "object",
        required: ["internal"],
        properties: { internal: { type: "object", default: {} } },
      },
      "040-extended/values.yaml": { extended: { host: "h", extra: 1 } },
      "041-helm-required/openapi/values.yaml": {
        type: "object",
        "x-required-for-helm": ["param1"],
        properties: { param1: { type: "string" }, param2: { type: "string" } },
      },
      "041-helm-required/values.yaml": { helmRequired: { param2: "x" } },
      // x-extend with any string extends from config-values.yaml (schema.ExtractExtendSettings).
      "042-bad-extend/openapi/config-values.yaml": { type: "object", properties: { a: { type: "string" } } },
      "042-bad-extend/openapi/values.yaml": { "x-extend": { schema: "other.yaml" }, type: "object" },
      "042-bad-extend/values.yaml": { badExtend: { a: 1 } },
      // A $ref that does not resolve stops addon-operator loading the module (spec.ExpandSchema fails).
      "043-bad-ref/openapi/config-values.yaml": {
        type: "object",
        properties: { a: { $ref: "#/definitions/nope" } },
      },
      // __proto__ and constructor are keys like any other (raw text: an object literal would set the prototype).
      "044-proto/openapi/values.yaml": {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" } },
      },
      "044-proto/values.yaml": "proto:\n  __proto__: {name: 1}\n  constructor: 2\n",
    });
    const run = lint(dir, "--output", "json");
    status = run.status;
    findings = JSON.parse(run.stdout).findings;
  });

  it("accepts kebab-case names that round-trip through camelCase, refuses the others", () => {
    for (const good of [
      "module1",
      "prometheus-operator",
      "cert-manager-crd",
      "l2-load-balancer",
      "module-one01",
    ]) {
      assert.deepEqual(about(good), [], good);
    }
    assert.match(about("010-module_one").join(), /ModuleName: module name "module_one" must be kebab-case/);
    assert.match(about("011-a--b").join(), /ModuleName: module name "a--b" must be kebab-case/);
    assert.match(about("012-foo-1").join(), /round trip .*foo-1 → foo1 → foo1/);
    assert.match(about("013-a-b-c").join(), /round trip .*a-b-c → aBC → a-bc/);
  });

  it("reports two directories with one name, and hidden directories", () => {
    assert.deepEqual(about("020-twin"), []);
    assert.deepEqual(about("021-twin"), [
      'error DuplicateModule: module name "twin" is also the name of 020-twin; addon-operator silently keeps only 021-twin',
    ]);
    assert.deepEqual(about(".hidden"), [
      'error HiddenDirectory: hidden directory ".hidden" in the modules dir: move or remove it',
    ]);
  });

  it("requires the module's key in values.yaml to be a map, schemas to parse; other keys are a warning", () => {
    assert.deepEqual(about("030-extra-keys"), [
      'warning ValuesFile: values.yaml key "global" is ignored: the module reads only "extraKeys" (and "extraKeysEnabled")',
    ]);
    assert.deepEqual(about("031-scalar-values"), [
      "error ValuesFile: values.yaml: scalarValues must be a map of values",
    ]);
    assert.match(
      about("032-bad-schema").join(),
      /SchemaFile: openapi\/config-values\.yaml is not valid YAML/,
    );
    assert.deepEqual(about("042-bad-extend"), [
      'warning XExtend: x-extend.schema is "other.yaml", but addon-operator extends from config-values.yaml whatever it names',
      'error ValuesSchema: badExtend.a in body must be of type string: "number"',
    ]);
  });

  it("reports a $ref that does not resolve, and judges __proto__ and constructor like any other key", () => {
    assert.deepEqual(about("043-bad-ref"), [
      'error SchemaFile: openapi/config-values.yaml cannot be loaded: $ref "#/definitions/nope" does not resolve: no "definitions"',
    ]);
    assert.deepEqual(about("044-proto"), [
      "error ValuesSchema: proto.name in body is required",
      "error ValuesSchema: proto.__proto__ in body is a forbidden property",
      "error ValuesSchema: proto.constructor in body is a forbidden property",
    ]);
  });

  it("reports a symlink that loops in the modules dir as one finding, and lints the rest", () => {
    const dir = writeTree({ "001-fine/Chart.yaml": "name: fine\n" });
    symlinkSync("loop", join(dir, "loop"));
    const run = lint(dir, "--output", "json");
    assert.equal(run.status, 1, run.stderr);
    const found = JSON.parse(run.stdout).findings as Finding[];
    assert.deepEqual(
      found.map((finding) => [finding.rule, finding.file]),
      [["ModulesDir", join(dir, "loop")]],
    );
    assert.match(
      found[0]?.message ?? "",
      /symlink "loop" cannot be resolved \(ELOOP\): addon-operator stops loading modules on it/,
    );
  });

  it("checks static values against the values schema extended from config-values", () => {
    // Plain JSON Schema would ignore x-extend (host and port unknown but allowed) and never close the schema.
    assert.deepEqual(about("040-extended"), [
      "error ValuesSchema: extended.extra in body is a forbidden property",
    ]);
  });

  it("reports x-required-for-helm as a warning for Helm, not as a values error", () => {
    assert.deepEqual(about("041-helm-required"), [
      "warning RequiredForHelm: helmRequired.param1 in body is required (x-required-for-helm): a hook must set it before Helm runs",
    ]);
  });

  it("exits 1 on errors, 0 when clean, 2 on usage errors; text and SARIF output", () => {
    assert.equal(status, 1);
    const clean = writeTree({ "001-simple-module/values.yaml": { simpleModule: { a: 1 } } });
    const text = lint(clean);
    assert.deepEqual(
      [text.status, text.stdout],
      [0, `1 module in ${clean}: 0 with errors, 0 with warnings only; 0 errors, 0 warnings\n`],
    );
    const missing = lint("/nonexistent/modules");
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /not a readable directory/);
    const dir = writeTree({ "001-Bad/Chart.yaml": "name: x\n" });
    const sarif = lint(dir, "-o", "sarif");
    assert.equal(sarif.status, 1);
    const result = JSON.parse(sarif.stdout).runs[0].results[0];
    assert.equal(result.ruleId, "ModuleName");
    assert.equal(result.level, "error");
    assert.match(result.message.text, /module Bad: module name "Bad" must be kebab-case/);
  });
});

describe("lint-modules on real module trees (read in place): no false errors", {
  skip: withoutCorpus,
}, () => {
  const shared = corpusPath("addon-operator/");
  const trees = [
    join(shared, "deckhouse-v1.43.1/modules"),
    ...readdirSync(join(shared, "addon-operator"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name === "modules")
      .map((entry) => join(entry.parentPath, entry.name)),
  ];
  // Each error lint-modules reports on these trees, with the addon-operator source that makes it one.
  const roundTrip = (module: string, key: string, back: string) =>
    // pkg/module_manager/loader/fs/fs.go validateModuleName: strcase.ToKebab(strcase.ToCamel(name)) must be
    // name; ettle/strcase puts no word break before a digit, so "module-1" → "module1" → "module1".
    `error ModuleName: module name "${module}" does not survive the round trip through its values key: ${module} → ${key} → ${back}`;
  const expected: Record<string, string[]> = {
    // pkg/values/validation/schemas.go LoadSchemaFromBytes: spec.ExpandSchema fails on a $ref that does not resolve,
    // and the module does not load. /deckhouse/candi is in deckhouse's image, not in this copy.
    "deckhouse-v1.43.1/modules": ["azure", "yandex"].map(
      (cloud) =>
        `error SchemaFile: openapi/values.yaml cannot be loaded: $ref "/deckhouse/candi/cloud-providers/${cloud}/openapi/cluster_configuration.yaml#/apiVersions/0/openAPISpec": /deckhouse/candi/cloud-providers/${cloud}/openapi/cluster_configuration.yaml cannot be read (ENOENT)`,
    ),
  };
  for (const dir of ["load_values__common_and_module_and_kube", "load_values__module_static_only"]) {
    expected[`addon-operator/pkg/module_manager/testdata/${dir}/modules`] = [1, 2].map((n) =>
      roundTrip(`with-values-${n}`, `withValues${n}`, `with-values${n}`),
    );
  }
  expected["addon-operator/pkg/module_manager/testdata/modules_state__no_cm__simple/modules"] = [
    1, 3, 4, 7, 8, 9,
  ].map((n) => roundTrip(`module-${n}`, `module${n}`, `module${n}`));

  it(`reports only the listed errors on ${trees.length} trees`, () => {
    assert.ok(trees.length > 20);
    const found: Record<string, string[]> = {};
    for (const tree of trees) {
      const run = lint(tree, "--output", "json");
      const hasModules = readdirSync(tree, { withFileTypes: true }).some(
        (entry) => entry.isDirectory() || entry.isSymbolicLink(),
      );
      if (!hasModules) {
        // A tree with no module directory is said to be one, and is no pass.
        assert.equal(run.status, 2, tree);
        assert.match(run.stderr, /nothing to check: no module directories in /);
        continue;
      }
      assert.notEqual(run.status, 2, `${tree}: ${run.stderr}`);
      const errors = (JSON.parse(run.stdout).findings as Finding[])
        .filter((finding) => finding.severity === "error")
        .map((finding) => `${finding.severity} ${finding.rule}: ${finding.message}`);
      assert.equal(run.status, errors.length > 0 ? 1 : 0);
      if (errors.length > 0) found[tree.slice(shared.length)] = errors;
    }
    assert.deepEqual(found, expected);
  });
});
