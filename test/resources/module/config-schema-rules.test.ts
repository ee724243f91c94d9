import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { warningText } from "../../../src/admission/warning.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigSchema } from "../../../src/resources/module/config-schema-rules.js";
import { type ExpectedError, matchErrors } from "../../support/match-errors.js";
import { helmModule } from "../../support/modules.js";

const errors = (items: ConfigItem[]) => validateConfigSchema(items).errors;
const invalid = (rule: ExpectedError["rule"], field: string, value: unknown, detail: string | RegExp) =>
  ({ type: "invalid", field, rule, value, detail }) as const;
const warnings = (items: ConfigItem[]) => validateConfigSchema(items).warnings.map(warningText);

describe("config schema rules", () => {
  it("accepts a schema with every item type", () => {
    matchErrors(errors(helmModule().config ?? []), []);
  });

  it("requires unique aliases (the operator would validate both and keep the later)", () => {
    const items: ConfigItem[] = [
      { name: "n", alias: " ", boolean: {} },
      { name: "n", alias: "a", boolean: {} },
      { name: "n", alias: "a", string: {} },
    ];
    matchErrors(errors(items), [
      { type: "duplicate", field: "config[2].alias", rule: "module.config-duplicate-alias", value: "a" },
    ]);
  });

  it("requires exactly one type per item", () => {
    const extra = (field: string) =>
      ({
        type: "forbidden",
        field,
        rule: "module.config-type",
        detail: "may not be set together with config[1].string (the operator would ignore it)",
      }) as const;
    matchErrors(
      errors([
        { name: "n", alias: "a" },
        { name: "n", alias: "b", string: {}, integer: {}, boolean: {} },
      ]),
      [
        {
          type: "required",
          field: "config[0]",
          rule: "module.config-type",
          detail:
            "exactly one of string, integer, boolean, option, multipleOptions must be set (the operator refuses an item without a type)",
        },
        extra("config[1].integer"),
        extra("config[1].boolean"),
      ],
    );
  });

  it("requires min ≤ max and a default within them", () => {
    matchErrors(errors([{ name: "n", alias: "n", integer: { min: 5, max: 3, default: 9 } }]), [
      invalid("module.config-min-max", "config[0].integer.min", 5, "must be less than or equal to max (3)"),
      invalid("module.config-default", "config[0].integer.default", 9, "must be less than or equal to 3"),
    ]);
    matchErrors(errors([{ name: "n", alias: "n", integer: { min: 1, default: -1 } }]), [
      invalid("module.config-default", "config[0].integer.default", -1, "must be greater than or equal to 1"),
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
    matchErrors(errors(items), []);
    assert.deepEqual(warnings(items), [
      'config[0].integer.default 0 must be greater than or equal to 1: a Module that omits "replicas" renders 0',
      'config[1].string.default "" must match the regular expression "^[0-9]+Gi$": a Module that omits "size" renders ""',
      'config[2].option.default "" is not one of the values: a Module that omits "env" renders ""',
      'config[3].multipleOptions.default [] must have at least 1 items: a Module that omits "tags" renders []',
    ]);
    for (const warning of warnings(items)) assert.ok(warning.length <= 120, warning);
  });

  it("requires a regex that compiles under RE2, and a default that matches it", () => {
    matchErrors(
      errors([
        { name: "n", alias: "a", string: { regex: "^(?=x)" } },
        { name: "n", alias: "b", string: { regex: "(a)\\1" } },
      ]),
      [
        invalid("module.config-regex", "config[0].string.regex", "^(?=x)", /^invalid RE2 syntax: /),
        invalid("module.config-regex", "config[1].string.regex", "(a)\\1", /invalid RE2 syntax/),
      ],
    );
    matchErrors(errors([{ name: "n", alias: "s", string: { regex: "^[0-9]+(Mi|Gi)$", default: "10Ti" } }]), [
      invalid(
        "module.config-default",
        "config[0].string.default",
        "10Ti",
        'must match the regular expression "^[0-9]+(Mi|Gi)$"',
      ),
    ]);
    matchErrors(errors([{ name: "n", alias: "s", string: { regex: "(?i)^abc$", default: "ABC" } }]), []);
  });

  it("requires an explicit option default among the values; a value listed twice is harmless", () => {
    matchErrors(
      errors([{ name: "n", alias: "env", option: { values: ["dev", "prod", "dev"], default: "qa" } }]),
      [
        {
          type: "notSupported",
          field: "config[0].option.default",
          rule: "module.config-default",
          value: "qa",
          detail: 'supported values: "dev", "prod", "dev"',
        },
      ],
    );
    matchErrors(
      errors([{ name: "n", alias: "env", option: { values: ["dev", "dev"], default: "dev" } }]),
      [],
    );
  });

  it("admits 300 option values (the operator has no limit)", () => {
    const values = ["v0", ...Array.from({ length: 299 }, (_, i) => `v${i + 1}`)] as [string, ...string[]];
    matchErrors(errors([{ name: "n", alias: "env", option: { values, default: "v299" } }]), []);
  });

  it("requires multipleOptions defaults among the values, without repeats, counted within min/max", () => {
    const item = (defaults: string[]): ConfigItem => ({
      name: "n",
      alias: "f",
      multipleOptions: { values: ["a", "b", "c"], min: 1, max: 2, default: defaults },
    });
    matchErrors(errors([item(["a", "z"])]), [
      {
        type: "notSupported",
        field: "config[0].multipleOptions.default[1]",
        rule: "module.config-default",
        value: "z",
        detail: 'supported values: "a", "b", "c"',
      },
    ]);
    matchErrors(errors([item([])]), []);
    matchErrors(errors([item(["a", "b", "a"])]), [
      {
        type: "duplicate",
        field: "config[0].multipleOptions.default[2]",
        rule: "module.config-default",
        value: "a",
      },
      {
        type: "tooMany",
        field: "config[0].multipleOptions.default",
        rule: "module.config-default",
        value: 3,
        detail: "must have at most 2 items",
      },
    ]);
    matchErrors(errors([{ name: "n", alias: "f", multipleOptions: { values: ["a"], min: 2, max: 1 } }]), [
      invalid(
        "module.config-min-max",
        "config[0].multipleOptions.min",
        2,
        "must be less than or equal to max (1)",
      ),
    ]);
  });

  it("refuses an item that is both required and not editable", () => {
    matchErrors(errors([{ name: "n", alias: "x", boolean: { required: true, editable: false } }]), [
      invalid(
        "module.config-required-editable",
        "config[0].boolean.editable",
        false,
        "a required item must be editable: no Module could both set and omit it",
      ),
    ]);
  });

  it("reports every problem of every item at once", () => {
    matchErrors(
      errors([
        { name: "n", alias: "e", integer: { min: 2, max: 1 } },
        { name: "n", alias: "e", option: { values: ["x"], default: "y" } },
      ]),
      [
        { type: "invalid", field: "config[0].integer.min", rule: "module.config-min-max" },
        { type: "duplicate", field: "config[1].alias", rule: "module.config-duplicate-alias" },
        { type: "notSupported", field: "config[1].option.default", rule: "module.config-default" },
      ],
    );
  });
});
