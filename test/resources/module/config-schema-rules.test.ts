import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigSchema } from "../../../src/resources/module/config-schema-rules.js";
import { helmModule } from "../../support/modules.js";

const lines = (items: ConfigItem[]) => validateConfigSchema(items).map(formatFieldError);

describe("config schema rules", () => {
  it("accepts a schema with every item type", () => {
    assert.deepEqual(lines(helmModule().config ?? []), []);
  });

  it("requires non-empty, unique aliases", () => {
    assert.deepEqual(
      lines([
        { alias: " ", boolean: {} },
        { alias: "a", boolean: {} },
        { alias: "a", string: {} },
      ]),
      ["config[0].alias: Required value: must be non-empty", 'config[2].alias: Duplicate value: "a"'],
    );
  });

  it("requires exactly one type per item", () => {
    assert.deepEqual(lines([{ alias: "a" }, { alias: "b", string: {}, integer: {}, boolean: {} }]), [
      "config[0]: Required value: exactly one of string, integer, boolean, option, multipleOptions must be set",
      "config[1].integer: Forbidden: may not be set together with config[1].string",
      "config[1].boolean: Forbidden: may not be set together with config[1].string",
    ]);
  });

  it("requires min ≤ max and a default within them", () => {
    assert.deepEqual(lines([{ alias: "n", integer: { min: 5, max: 3, default: 9 } }]), [
      "config[0].integer.min: Invalid value: 5: must be less than or equal to max (3)",
      "config[0].integer.default: Invalid value: 9: must be less than or equal to 3",
    ]);
    assert.deepEqual(lines([{ alias: "n", integer: { min: 1, default: 0 } }]), [
      "config[0].integer.default: Invalid value: 0: must be greater than or equal to 1",
    ]);
  });

  it("requires a regex that compiles under RE2, and a default that matches it", () => {
    const [lookahead, backreference] = lines([
      { alias: "a", string: { regex: "^(?=x)" } },
      { alias: "b", string: { regex: "(a)\\1" } },
    ]);
    assert.match(
      lookahead ?? "",
      /^config\[0\]\.string\.regex: Invalid value: "\^\(\?=x\)": invalid RE2 syntax: /,
    );
    assert.match(backreference ?? "", /^config\[1\]\.string\.regex: Invalid value: .*invalid RE2 syntax/);
    assert.deepEqual(lines([{ alias: "s", string: { regex: "^[0-9]+(Mi|Gi)$", default: "10Ti" } }]), [
      'config[0].string.default: Invalid value: "10Ti": must match the regular expression "^[0-9]+(Mi|Gi)$"',
    ]);
    assert.deepEqual(lines([{ alias: "s", string: { regex: "(?i)^abc$", default: "ABC" } }]), []);
  });

  it("requires option defaults among the values, values listed once", () => {
    assert.deepEqual(lines([{ alias: "env", option: { values: ["dev", "prod", "dev"], default: "qa" } }]), [
      'config[0].option.values[2]: Duplicate value: "dev"',
      'config[0].option.default: Unsupported value: "qa": supported values: "dev", "prod", "dev"',
    ]);
    assert.deepEqual(lines([{ alias: "env", option: {} }]), [
      "config[0].option.values: Required value: at least one value must be listed",
    ]);
  });

  it("requires multipleOptions defaults among the values, without repeats, counted within min/max", () => {
    const item = (defaults: string[]): ConfigItem => ({
      alias: "f",
      multipleOptions: { values: ["a", "b", "c"], min: 1, max: 2, default: defaults },
    });
    assert.deepEqual(lines([item(["a", "z"])]), [
      'config[0].multipleOptions.default[1]: Unsupported value: "z": supported values: "a", "b", "c"',
    ]);
    assert.deepEqual(lines([item([])]), [
      "config[0].multipleOptions.default: Invalid value: []: must have at least 1 items",
    ]);
    assert.deepEqual(lines([item(["a", "b", "a"])]), [
      'config[0].multipleOptions.default[2]: Duplicate value: "a"',
      "config[0].multipleOptions.default: Too many: 3: must have at most 2 items",
    ]);
    assert.deepEqual(lines([{ alias: "f", multipleOptions: { values: ["a"], min: 2, max: 1 } }]), [
      "config[0].multipleOptions.min: Invalid value: 2: must be less than or equal to max (1)",
    ]);
  });

  it("refuses an item that is both required and not editable", () => {
    assert.deepEqual(lines([{ alias: "x", boolean: { required: true, editable: false } }]), [
      "config[0].boolean.editable: Invalid value: false: a required item must be editable: no Module could both set and omit it",
    ]);
  });

  it("reports every problem of every item at once", () => {
    const errors = validateConfigSchema([
      { alias: "", integer: { min: 2, max: 1 } },
      { alias: "e", option: { values: ["x"], default: "y" } },
    ]);
    assert.deepEqual(
      errors.map((error) => error.field),
      ["config[0].alias", "config[0].integer.min", "config[1].option.default"],
    );
  });
});
