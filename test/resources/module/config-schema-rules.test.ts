import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { warningText } from "../../../src/admission/warning.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigSchema } from "../../../src/resources/module/config-schema-rules.js";
import { helmModule } from "../../support/modules.js";

const lines = (items: ConfigItem[]) => validateConfigSchema(items).errors.map(formatFieldError);
const warnings = (items: ConfigItem[]) => validateConfigSchema(items).warnings.map(warningText);

describe("config schema rules", () => {
  it("accepts a schema with every item type", () => {
    assert.deepEqual(lines(helmModule().config ?? []), []);
  });

  it("requires unique aliases (the operator would validate both and keep the later)", () => {
    const items: ConfigItem[] = [
      { name: "n", alias: " ", boolean: {} },
      { name: "n", alias: "a", boolean: {} },
      { name: "n", alias: "a", string: {} },
    ];
    assert.deepEqual(lines(items), ['config[2].alias: Duplicate value: "a"']);
    assert.deepEqual(
      validateConfigSchema(items).errors.map((error) => error.rule),
      ["module.config-duplicate-alias"],
    );
  });

  it("requires exactly one type per item", () => {
    assert.deepEqual(
      lines([
        { name: "n", alias: "a" },
        { name: "n", alias: "b", string: {}, integer: {}, boolean: {} },
      ]),
      [
        "config[0]: Required value: exactly one of string, integer, boolean, option, multipleOptions must be set (the operator refuses an item without a type)",
        "config[1].integer: Forbidden: may not be set together with config[1].string (the operator would ignore it)",
        "config[1].boolean: Forbidden: may not be set together with config[1].string (the operator would ignore it)",
      ],
    );
  });

  it("requires min ≤ max and a default within them", () => {
    assert.deepEqual(lines([{ name: "n", alias: "n", integer: { min: 5, max: 3, default: 9 } }]), [
      "config[0].integer.min: Invalid value: 5: must be less than or equal to max (3)",
      "config[0].integer.default: Invalid value: 9: must be less than or equal to 3",
    ]);
    assert.deepEqual(lines([{ name: "n", alias: "n", integer: { min: 1, default: -1 } }]), [
      "config[0].integer.default: Invalid value: -1: must be greater than or equal to 1",
    ]);
  });

  it("never denies a zero-value default (what the operator's CRD writes), but says what it renders", () => {
    const items: ConfigItem[] = [
      { name: "n", alias: "replicas", integer: { min: 1, default: 0 } },
      { name: "n", alias: "size", string: { regex: "^[0-9]+Gi$", default: "" } },
      { name: "n", alias: "env", option: { values: ["dev", "prod"], default: "" } },
      { name: "n", alias: "tags", multipleOptions: { values: ["a"], min: 1 } },
      { name: "n", alias: "on", boolean: { default: false } },
      { name: "n", alias: "free", string: { default: "" } },
    ];
    assert.deepEqual(lines(items), []);
    assert.deepEqual(warnings(items), [
      'config[0].integer.default 0 must be greater than or equal to 1: a Module that omits "replicas" renders 0',
      'config[1].string.default "" must match the regular expression "^[0-9]+Gi$": a Module that omits "size" renders ""',
      'config[2].option.default "" is not one of the values: a Module that omits "env" renders ""',
      'config[3].multipleOptions.default [] must have at least 1 items: a Module that omits "tags" renders []',
    ]);
    for (const warning of warnings(items)) assert.ok(warning.length <= 120, warning);
  });

  it("requires a regex that compiles under RE2, and a default that matches it", () => {
    const [lookahead, backreference] = lines([
      { name: "n", alias: "a", string: { regex: "^(?=x)" } },
      { name: "n", alias: "b", string: { regex: "(a)\\1" } },
    ]);
    assert.match(
      lookahead ?? "",
      /^config\[0\]\.string\.regex: Invalid value: "\^\(\?=x\)": invalid RE2 syntax: /,
    );
    assert.match(backreference ?? "", /^config\[1\]\.string\.regex: Invalid value: .*invalid RE2 syntax/);
    assert.deepEqual(
      lines([{ name: "n", alias: "s", string: { regex: "^[0-9]+(Mi|Gi)$", default: "10Ti" } }]),
      [
        'config[0].string.default: Invalid value: "10Ti": must match the regular expression "^[0-9]+(Mi|Gi)$"',
      ],
    );
    assert.deepEqual(lines([{ name: "n", alias: "s", string: { regex: "(?i)^abc$", default: "ABC" } }]), []);
  });

  it("requires an explicit option default among the values; a value listed twice is harmless", () => {
    assert.deepEqual(
      lines([{ name: "n", alias: "env", option: { values: ["dev", "prod", "dev"], default: "qa" } }]),
      ['config[0].option.default: Unsupported value: "qa": supported values: "dev", "prod", "dev"'],
    );
    assert.deepEqual(
      lines([{ name: "n", alias: "env", option: { values: ["dev", "dev"], default: "dev" } }]),
      [],
    );
  });

  it("admits 300 option values (the operator has no limit)", () => {
    const values = ["v0", ...Array.from({ length: 299 }, (_, i) => `v${i + 1}`)] as [string, ...string[]];
    assert.deepEqual(lines([{ name: "n", alias: "env", option: { values, default: "v299" } }]), []);
  });

  it("requires multipleOptions defaults among the values, without repeats, counted within min/max", () => {
    const item = (defaults: string[]): ConfigItem => ({
      name: "n",
      alias: "f",
      multipleOptions: { values: ["a", "b", "c"], min: 1, max: 2, default: defaults },
    });
    assert.deepEqual(lines([item(["a", "z"])]), [
      'config[0].multipleOptions.default[1]: Unsupported value: "z": supported values: "a", "b", "c"',
    ]);
    assert.deepEqual(lines([item([])]), []);
    assert.deepEqual(lines([item(["a", "b", "a"])]), [
      'config[0].multipleOptions.default[2]: Duplicate value: "a"',
      "config[0].multipleOptions.default: Too many: 3: must have at most 2 items",
    ]);
    assert.deepEqual(lines([{ name: "n", alias: "f", multipleOptions: { values: ["a"], min: 2, max: 1 } }]), [
      "config[0].multipleOptions.min: Invalid value: 2: must be less than or equal to max (1)",
    ]);
  });

  it("refuses an item that is both required and not editable", () => {
    assert.deepEqual(lines([{ name: "n", alias: "x", boolean: { required: true, editable: false } }]), [
      "config[0].boolean.editable: Invalid value: false: a required item must be editable: no Module could both set and omit it",
    ]);
  });

  it("reports every problem of every item at once", () => {
    const { errors } = validateConfigSchema([
      { name: "n", alias: "e", integer: { min: 2, max: 1 } },
      { name: "n", alias: "e", option: { values: ["x"], default: "y" } },
    ]);
    assert.deepEqual(
      errors.map((error) => [String(error.field), error.rule]),
      [
        ["config[0].integer.min", "module.config-min-max"],
        ["config[1].alias", "module.config-duplicate-alias"],
        ["config[1].option.default", "module.config-default"],
      ],
    );
  });
});
