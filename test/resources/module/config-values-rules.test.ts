import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigValues } from "../../../src/resources/module/config-values-rules.js";
import { helmModule } from "../../support/modules.js";

const items = (): ConfigItem[] => helmModule().config ?? [];
const lines = (values: Record<string, unknown>, schema: ConfigItem[] = items()) =>
  validateConfigValues(schema, values).map(formatFieldError);

describe("spec.config against the config schema", () => {
  it("accepts values that meet every constraint, and an empty config when nothing is required", () => {
    assert.deepEqual(lines(helmModule().spec.config ?? {}), []);
    assert.deepEqual(lines({}), []);
  });

  it("refuses undeclared keys, suggesting the alias a typo meant", () => {
    assert.deepEqual(lines({ replicsa: 1 }), [
      'spec.config.replicsa: Forbidden: not declared in the config schema (the config schema declares version, replicas, host, metrics, features); did you mean "replicas"?',
    ]);
    assert.deepEqual(lines({ x: 1 }, []), [
      "spec.config.x: Forbidden: not declared in the config schema (the Module declares no config)",
    ]);
  });

  it("requires a required key even when it has a default", () => {
    const schema: ConfigItem[] = [
      { alias: "env", option: { required: true, default: "dev", values: ["dev"] } },
    ];
    assert.deepEqual(lines({}, schema), [
      "spec.config.env: Required value: required by the config schema, even with a default",
    ]);
    assert.deepEqual(lines({ env: "dev" }, schema), []);
  });

  it("refuses any value for a non-editable key, its default included; absent editable means editable", () => {
    const schema: ConfigItem[] = [
      { alias: "locked", string: { editable: false, default: "v1" } },
      { alias: "open", string: { default: "v1" } },
    ];
    assert.deepEqual(lines({ locked: "v1", open: "v2" }, schema), [
      "spec.config.locked: Forbidden: not editable: the config schema sets editable: false",
    ]);
  });

  it("checks types: integers are whole numbers, never strings", () => {
    assert.deepEqual(lines({ replicas: 3.5, host: 5, metrics: "true", version: 1, features: "logging" }), [
      "spec.config.version: Invalid value: 1: must be of type string",
      "spec.config.replicas: Invalid value: 3.5: must be a whole number",
      "spec.config.host: Invalid value: 5: must be of type string",
      'spec.config.metrics: Invalid value: "true": must be of type boolean',
      'spec.config.features: Invalid value: "logging": must be of type array',
    ]);
    assert.deepEqual(lines({ replicas: "3" }), [
      'spec.config.replicas: Invalid value: "3": must be of type integer',
    ]);
    assert.deepEqual(lines({ replicas: null }), [
      "spec.config.replicas: Invalid value: null: must be of type integer",
    ]);
  });

  it("checks min, max and regex", () => {
    assert.deepEqual(lines({ replicas: 7 }), [
      "spec.config.replicas: Invalid value: 7: must be less than or equal to 5",
    ]);
    assert.deepEqual(lines({ replicas: -1 }), [
      "spec.config.replicas: Invalid value: -1: must be greater than or equal to 0",
    ]);
    assert.deepEqual(lines({ host: "Redis.Local" }), [
      'spec.config.host: Invalid value: "Redis.Local": must match the regular expression "^[a-z.]+$"',
    ]);
  });

  it("matches regexes unanchored with RE2 flags, as Go's regexp.MatchString", () => {
    const schema: ConfigItem[] = [{ alias: "s", string: { regex: "(?i)gi" } }];
    assert.deepEqual(lines({ s: "20GI-volume" }, schema), []);
    assert.equal(lines({ s: "20Mi" }, schema).length, 1);
  });

  it("checks option and multipleOptions choices", () => {
    assert.deepEqual(lines({ version: "1.0" }), [
      'spec.config.version: Unsupported value: "1.0": supported values: "21.2.9", "21.2.7"',
    ]);
    assert.deepEqual(lines({ features: ["logging", "profiling", "logging"] }), [
      'spec.config.features[1]: Unsupported value: "profiling": supported values: "logging", "metrics", "tracing"',
      'spec.config.features[2]: Duplicate value: "logging"',
      "spec.config.features: Too many: 3: must have at most 2 items",
    ]);
    assert.deepEqual(lines({ features: [] }), [
      "spec.config.features: Invalid value: []: must have at least 1 items",
    ]);
    assert.deepEqual(lines({ features: ["logging", 3] }), [
      "spec.config.features[1]: Invalid value: 3: must be of type string",
    ]);
  });

  it("answers a hostile regex on a 60 KB value (RE2 is linear), and refuses to match a value over 64 KiB", () => {
    const schema: ConfigItem[] = [{ alias: "s", string: { regex: "(a+)+$" } }];
    const shown = (value: string) => `${JSON.stringify(value).slice(0, 200)}...`;
    const within = `${"a".repeat(60_000)}!`;
    assert.deepEqual(lines({ s: within }, schema), [
      `spec.config.s: Invalid value: ${shown(within)}: must match the regular expression "(a+)+$"`,
    ]);
    const over = "a".repeat(64 * 1024 + 1);
    assert.deepEqual(lines({ s: over }, schema), [
      `spec.config.s: Invalid value: ${shown(over)}: is not matched against the regular expression: longer than the 65536 characters this webhook matches`,
    ]);
  });

  it("bounds the matching work of one object: long values against large patterns are refused, not matched", () => {
    const pattern = ".{1000}x";
    const schema: ConfigItem[] = ["a", "b", "c"].map((alias) => ({ alias, string: { regex: pattern } }));
    const value = "y".repeat(3000);
    const found = lines({ a: value, b: value, c: value }, schema);
    // 3,001 characters × 1,003 instructions: the first two fit the budget of 8 million, the third not.
    assert.equal(found.length, 3);
    assert.match(found[0] ?? "", /must match the regular expression/);
    assert.match(found[1] ?? "", /must match the regular expression/);
    assert.match(found[2] ?? "", /is not matched against the regular expression: too long for this pattern/);
  });
});
