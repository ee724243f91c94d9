import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { warningText } from "../../../src/admission/warning.js";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigValues } from "../../../src/resources/module/config-values-rules.js";
import { helmModule } from "../../support/modules.js";

const items = (): ConfigItem[] => helmModule().config ?? [];
const lines = (values: Record<string, unknown>, schema: ConfigItem[] = items(), work?: WorkBudget) =>
  validateConfigValues(schema, values, "helm", work).errors.map(formatFieldError);
const warnings = (
  values: Record<string, unknown>,
  source: "helm" | "custom",
  schema: ConfigItem[] = items(),
) => validateConfigValues(schema, values, source).warnings.map(warningText);

describe("spec.config against the config schema", () => {
  it("accepts values that meet every constraint, and an empty config when nothing is required", () => {
    assert.deepEqual(lines(helmModule().spec.config ?? {}), []);
    assert.deepEqual(lines({}), []);
  });

  it("admits undeclared keys: a warning for helm Modules (the operator ignores them), with a did-you-mean", () => {
    assert.deepEqual(lines({ replicsa: 1, x: 1 }), []);
    assert.deepEqual(warnings({ replicsa: 1, x: 1 }, "helm"), [
      'spec.config.replicsa is not declared in the config schema: the operator ignores it; did you mean "replicas"?',
      "spec.config.x is not declared in the config schema: the operator ignores it",
    ]);
  });

  it("admits undeclared keys of custom Modules (the runner gets them), warning only one edit from an alias", () => {
    const verdict = validateConfigValues(items(), { replica: 1, LOG_LEVEL: "debug" }, "custom");
    assert.deepEqual(verdict.errors, []);
    assert.deepEqual(verdict.warnings.map(warningText), [
      'spec.config.replica is not declared, but passed to the runner; did you mean "replicas"?',
    ]);
    assert.deepEqual(
      verdict.warnings.map((warning) => warning.field?.segments),
      [["spec", "config", "replica"]],
    );
  });

  it("requires a required key even when it has a default", () => {
    const schema: ConfigItem[] = [
      { name: "n", alias: "env", option: { required: true, default: "dev", values: ["dev"] } },
    ];
    assert.deepEqual(lines({}, schema), [
      "spec.config.env: Required value: required by the config schema (the operator refuses it even with a default)",
    ]);
    assert.deepEqual(lines({ env: "dev" }, schema), []);
  });

  it("refuses any value for a non-editable key, its default included; absent editable means editable", () => {
    const schema: ConfigItem[] = [
      { name: "n", alias: "locked", string: { editable: false, default: "v1" } },
      { name: "n", alias: "open", string: { default: "v1" } },
    ];
    assert.deepEqual(lines({ locked: "v1", open: "v2" }, schema), [
      "spec.config.locked: Forbidden: not editable: the config schema sets editable: false (the operator refuses any value)",
    ]);
  });

  it("checks types: integers are whole numbers, never strings", () => {
    assert.deepEqual(lines({ replicas: 3.5, host: 5, metrics: "true", version: 1 }), [
      "spec.config.version: Invalid value: 1: must be of type string",
      "spec.config.replicas: Invalid value: 3.5: must be a whole number (the operator would silently use 3)",
      "spec.config.host: Invalid value: 5: must be of type string",
      'spec.config.metrics: Invalid value: "true": must be of type boolean',
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
    const schema: ConfigItem[] = [{ name: "n", alias: "s", string: { regex: "(?i)gi" } }];
    assert.deepEqual(lines({ s: "20GI-volume" }, schema), []);
    assert.equal(lines({ s: "20Mi" }, schema).length, 1);
  });

  it("checks option choices", () => {
    assert.deepEqual(lines({ version: "1.0" }), [
      'spec.config.version: Unsupported value: "1.0": supported values: "21.2.9", "21.2.7"',
    ]);
  });

  it("refuses every multipleOptions value, valid or not, as the operator v0.1.24 does", () => {
    for (const value of [["logging"], [], "logging"]) {
      const { errors } = validateConfigValues(items(), { features: value }, "helm");
      assert.deepEqual(
        errors.map((error) => [formatFieldError(error), error.rule]),
        [
          [
            'spec.config.features: Forbidden: the Forkspacer operator v0.1.24 refuses every multipleOptions value ("input is not an string array"); omit it to use the default',
            "module.multiple-options-value",
          ],
        ],
      );
    }
  });

  it("tags every error with its rule id", () => {
    const schema: ConfigItem[] = [
      ...items(),
      { name: "n", alias: "env", option: { required: true, values: ["dev"] } },
      { name: "n", alias: "locked", boolean: { editable: false } },
    ];
    const { errors } = validateConfigValues(schema, { replicas: 2.5, host: "X", locked: true }, "helm");
    assert.deepEqual(
      errors.map((error) => [String(error.field), error.rule]),
      [
        ["spec.config.replicas", "module.config-whole-number"],
        ["spec.config.host", "module.config-value"],
        ["spec.config.env", "module.config-required"],
        ["spec.config.locked", "module.config-not-editable"],
      ],
    );
  });

  it("answers a hostile regex on a 60 KB value (RE2 is linear), and refuses to match a value over 64 KiB", () => {
    const schema: ConfigItem[] = [{ name: "n", alias: "s", string: { regex: "(a+)+$" } }];
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
    const schema: ConfigItem[] = ["a", "b", "c"].map((alias) => ({
      name: "n",
      alias,
      string: { regex: pattern },
    }));
    const value = "y".repeat(3000);
    const found = lines({ a: value, b: value, c: value }, schema);
    // 3,001 characters × 1,003 instructions, 2 work units each: the first (6 million units) fits the
    // review's work budget of 12 million, the second would pass it, and the third too.
    assert.equal(found.length, 3);
    assert.match(found[0] ?? "", /must match the regular expression/);
    assert.match(found[1] ?? "", /is not matched against the regular expression: too long for this pattern/);
    assert.match(found[2] ?? "", /is not matched against the regular expression: too long for this pattern/);
    // Without the review's budget (a caller of its own), the matching budget of 8 million steps alone.
    const alone = lines({ a: value, b: value, c: value }, schema, new WorkBudget(Number.POSITIVE_INFINITY));
    assert.match(alone[1] ?? "", /must match the regular expression/);
    assert.match(alone[2] ?? "", /too long for this pattern/);
  });

  it("denies an integer beyond Go's int range: the operator's int() of it is undefined", () => {
    const schema: ConfigItem[] = [{ name: "N", alias: "n", integer: {} }];
    assert.deepEqual(lines({ n: 2 ** 63 }, schema), [
      "spec.config.n: Invalid value: 9223372036854776000: must be within Go's int range, -2^63 to 2^63-1 (the operator's int() of it is undefined)",
    ]);
    assert.deepEqual(lines({ n: -(2 ** 63) }, schema), []);
  });
});
