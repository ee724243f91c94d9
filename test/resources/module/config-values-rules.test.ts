import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { warningText } from "../../../src/admission/warning.js";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigValues } from "../../../src/resources/module/config-values-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { helmModule } from "../../support/modules.js";

const items = (): ConfigItem[] => helmModule().config ?? [];
const errors = (
  values: Record<string, unknown>,
  schema: ConfigItem[] = items(),
  work: WorkBudget = new WorkBudget(),
) => validateConfigValues(schema, values, "helm", work).errors;
/** A value that breaks its item's type or constraints (module.config-value). */
const badValue = (alias: string, value: unknown, detail: string | RegExp) =>
  ({ type: "invalid", field: `spec.config.${alias}`, rule: "module.config-value", value, detail }) as const;
const warnings = (
  values: Record<string, unknown>,
  source: "helm" | "custom",
  schema: ConfigItem[] = items(),
) => validateConfigValues(schema, values, source, new WorkBudget()).warnings.map(warningText);

describe("spec.config against the config schema", () => {
  it("accepts values that meet every constraint, and an empty config when nothing is required", () => {
    matchErrors(errors(helmModule().spec.config ?? {}), []);
    matchErrors(errors({}), []);
  });

  it("admits undeclared keys: a warning for helm Modules (the operator ignores them), with a did-you-mean", () => {
    matchErrors(errors({ replicsa: 1, x: 1 }), []);
    assert.deepEqual(warnings({ replicsa: 1, x: 1 }, "helm"), [
      'spec.config.replicsa is not declared in the config schema: the operator ignores it; did you mean "replicas"?',
      "spec.config.x is not declared in the config schema: the operator ignores it",
    ]);
  });

  it("admits undeclared keys of custom Modules (the runner gets them), warning only one edit from an alias", () => {
    const verdict = validateConfigValues(
      items(),
      { replica: 1, LOG_LEVEL: "debug" },
      "custom",
      new WorkBudget(),
    );
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
    matchErrors(errors({}, schema), [
      {
        type: "required",
        field: "spec.config.env",
        rule: "module.config-required",
        detail: "required by the config schema (the operator refuses it even with a default)",
      },
    ]);
    matchErrors(errors({ env: "dev" }, schema), []);
  });

  it("refuses any value for a non-editable key, its default included; absent editable means editable", () => {
    const schema: ConfigItem[] = [
      { name: "n", alias: "locked", string: { editable: false, default: "v1" } },
      { name: "n", alias: "open", string: { default: "v1" } },
    ];
    matchErrors(errors({ locked: "v1", open: "v2" }, schema), [
      {
        type: "forbidden",
        field: "spec.config.locked",
        rule: "module.config-not-editable",
        detail: "not editable: the config schema sets editable: false (the operator refuses any value)",
      },
    ]);
  });

  it("checks types: integers are whole numbers, never strings", () => {
    matchErrors(errors({ replicas: 3.5, host: 5, metrics: "true", version: 1 }), [
      badValue("version", 1, "must be of type string"),
      {
        type: "invalid",
        field: "spec.config.replicas",
        rule: "module.config-whole-number",
        value: 3.5,
        detail: "must be a whole number (the operator would silently use 3)",
      },
      badValue("host", 5, "must be of type string"),
      badValue("metrics", "true", "must be of type boolean"),
    ]);
    matchErrors(errors({ replicas: "3" }), [badValue("replicas", "3", "must be of type integer")]);
    matchErrors(errors({ replicas: null }), [badValue("replicas", null, "must be of type integer")]);
  });

  it("checks min, max and regex", () => {
    matchErrors(errors({ replicas: 7 }), [badValue("replicas", 7, "must be less than or equal to 5")]);
    matchErrors(errors({ replicas: -1 }), [badValue("replicas", -1, "must be greater than or equal to 0")]);
    matchErrors(errors({ host: "Redis.Local" }), [
      badValue("host", "Redis.Local", 'must match the regular expression "^[a-z.]+$"'),
    ]);
  });

  it("matches regexes unanchored with RE2 flags, as Go's regexp.MatchString", () => {
    const schema: ConfigItem[] = [{ name: "n", alias: "s", string: { regex: "(?i)gi" } }];
    matchErrors(errors({ s: "20GI-volume" }, schema), []);
    matchErrors(errors({ s: "20Mi" }, schema), [
      badValue("s", "20Mi", 'must match the regular expression "(?i)gi"'),
    ]);
  });

  it("checks option choices", () => {
    matchErrors(errors({ version: "1.0" }), [
      {
        type: "notSupported",
        field: "spec.config.version",
        rule: "module.config-value",
        value: "1.0",
        detail: 'supported values: "21.2.9", "21.2.7"',
      },
    ]);
  });

  it("refuses every multipleOptions value, valid or not, as the operator v0.1.24 does", () => {
    for (const value of [["logging"], [], "logging"]) {
      matchErrors(
        errors({ features: value }),
        [
          {
            type: "forbidden",
            field: "spec.config.features",
            rule: "module.multiple-options-value",
            detail:
              'the Forkspacer operator v0.1.24 refuses every multipleOptions value ("input is not an string array"); omit it to use the default',
          },
        ],
        JSON.stringify(value),
      );
    }
  });

  it("tags every error with its rule id", () => {
    const schema: ConfigItem[] = [
      ...items(),
      { name: "n", alias: "env", option: { required: true, values: ["dev"] } },
      { name: "n", alias: "locked", boolean: { editable: false } },
    ];
    matchErrors(errors({ replicas: 2.5, host: "X", locked: true }, schema), [
      { type: "invalid", field: "spec.config.replicas", rule: "module.config-whole-number" },
      { type: "invalid", field: "spec.config.host", rule: "module.config-value" },
      { type: "required", field: "spec.config.env", rule: "module.config-required" },
      { type: "forbidden", field: "spec.config.locked", rule: "module.config-not-editable" },
    ]);
  });

  it("answers a hostile regex on a 60 KB value (RE2 is linear), and refuses to match a value over 64 KiB", () => {
    const schema: ConfigItem[] = [{ name: "n", alias: "s", string: { regex: "(a+)+$" } }];
    const within = `${"a".repeat(60_000)}!`;
    matchErrors(errors({ s: within }, schema), [
      badValue("s", within, 'must match the regular expression "(a+)+$"'),
    ]);
    const over = "a".repeat(64 * 1024 + 1);
    matchErrors(errors({ s: over }, schema), [
      badValue(
        "s",
        over,
        "is not matched against the regular expression: longer than the 65536 characters this webhook matches",
      ),
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
    const matched = (alias: string) => badValue(alias, value, /^must match the regular expression/);
    const refused = (alias: string) =>
      badValue(alias, value, /^is not matched against the regular expression: too long for this pattern/);
    // 3,001 characters × 1,003 instructions, 2 work units each: the first (6 million units) fits the
    // review's work budget of 12 million, the second would pass it, and the third too.
    matchErrors(errors({ a: value, b: value, c: value }, schema), [matched("a"), refused("b"), refused("c")]);
    // Without the review's budget (a caller of its own), the matching budget of 8 million steps alone.
    const alone = errors({ a: value, b: value, c: value }, schema, new WorkBudget(Number.POSITIVE_INFINITY));
    matchErrors(alone, [matched("a"), matched("b"), refused("c")]);
  });

  it("denies an integer beyond Go's int range: the operator's int() of it is undefined", () => {
    const schema: ConfigItem[] = [{ name: "N", alias: "n", integer: {} }];
    matchErrors(errors({ n: 2 ** 63 }, schema), [
      badValue(
        "n",
        2 ** 63,
        "must be within Go's int range, -2^63 to 2^63-1 (the operator's int() of it is undefined)",
      ),
    ]);
    matchErrors(errors({ n: -(2 ** 63) }, schema), []);
  });
});
