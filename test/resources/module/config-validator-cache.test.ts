import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { ConfigItem } from "../../../src/generated/module.js";
import { validateConfigSchema } from "../../../src/resources/module/config-schema-rules.js";
import {
  cacheBytesLimit,
  configValidator,
  configValidatorCacheBytes,
  matchesShape,
  setConfigValidatorCache,
  shapeOf,
} from "../../../src/resources/module/config-validator-cache.js";
import { validateConfigValues } from "../../../src/resources/module/config-values-rules.js";
import { helmModule } from "../../support/modules.js";

const items = () => helmModule().config ?? [];

const values = fc.dictionary(
  fc.constantFrom("version", "replicas", "host", "metrics", "features", "repliacs"),
  fc.oneof(
    fc.jsonValue(),
    fc.constantFrom("21.2.9", "redis.local", "UPPER", ["logging"], ["x", "x"], 3, 3.5, true),
  ),
);

describe("cached config validators", () => {
  it("give the same errors as the rules themselves, cache on and off", () => {
    for (const cache of [true, false]) {
      setConfigValidatorCache(cache);
      fc.assert(
        fc.property(values, fc.nat(4), fc.integer({ min: -2, max: 9 }), (config, index, max) => {
          const schema = items();
          const integer = schema[index]?.integer;
          if (integer) integer.max = max;
          const validator = configValidator(schema, new WorkBudget());
          assert.deepEqual(validator.schema, validateConfigSchema(schema));
          for (const source of ["helm", "custom"] as const) {
            assert.deepEqual(
              validator.validateValues(config, source, new WorkBudget()),
              validateConfigValues(schema, config, source, new WorkBudget()),
            );
          }
        }),
        { numRuns: 300 },
      );
    }
    setConfigValidatorCache(true);
  });

  it("are not changed by later changes to the schema object they were built from", () => {
    const schema = items();
    const before = configValidator(schema, new WorkBudget());
    (schema[1] as ConfigItem).integer = { min: 0, max: 1 };
    assert.deepEqual(
      configValidator(items(), new WorkBudget()).validateValues({ replicas: 3 }, "helm", new WorkBudget())
        .errors,
      [],
    );
    assert.equal(before.validateValues({ replicas: 3 }, "helm", new WorkBudget()).errors.length, 0);
    assert.equal(
      configValidator(schema, new WorkBudget()).validateValues({ replicas: 3 }, "helm", new WorkBudget())
        .errors.length,
      1,
    );
  });

  it("stay right beyond the cache's bound", () => {
    for (let max = 0; max < 600; max++) {
      const schema: ConfigItem[] = [{ name: "N", alias: "n", integer: { max } }];
      assert.equal(
        configValidator(schema, new WorkBudget()).validateValues({ n: 300 }, "helm", new WorkBudget()).errors
          .length,
        max < 300 ? 1 : 0,
      );
    }
  });

  it("stay within their byte bound however large and many the schemas", () => {
    setConfigValidatorCache(true);
    const big = (n: number): ConfigItem[] =>
      Array.from({ length: 128 }, (_, i) => ({
        name: "n",
        alias: `a${n}-${i}`,
        string: { default: "d".repeat(2000) },
      }));
    for (let n = 0; n < 200; n++) configValidator(big(n), new WorkBudget());
    assert.ok(configValidatorCacheBytes() <= cacheBytesLimit, `${configValidatorCacheBytes()}`);
    assert.ok(configValidatorCacheBytes() > cacheBytesLimit / 2);
    const huge: ConfigItem[] = [{ name: "n", alias: "x", string: { default: "h".repeat(2 * 1024 * 1024) } }];
    const before = configValidatorCacheBytes();
    assert.deepEqual(
      configValidator(huge, new WorkBudget()).validateValues({ x: "y" }, "helm", new WorkBudget()).errors,
      [],
    );
    assert.equal(configValidatorCacheBytes(), before, "a schema over a quarter of the bound is not kept");
  });
});

describe("matchesShape", () => {
  const json = fc.jsonValue();
  const sameJson = (a: unknown, b: unknown) => matchesShape(a, shapeOf(b));
  it("agrees with comparing JSON texts, key order included", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        assert.equal(sameJson(a, b), JSON.stringify(a) === JSON.stringify(b));
        assert.equal(sameJson(a, structuredClone(a)), true);
      }),
      { numRuns: 2000 },
    );
    assert.equal(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 }), false);
    assert.equal(sameJson([1, [2]], [1, [2]]), true);
    assert.equal(sameJson({ 0: "x" }, ["x"]), false);
    assert.equal(sameJson(["x"], { 0: "x" }), false);
    assert.equal(sameJson({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(sameJson({ a: 1, b: 2 }, { a: 1 }), false);
    assert.equal(sameJson(JSON.parse('{"__proto__": 1}'), JSON.parse('{"__proto__": 1}')), true);
    assert.equal(sameJson(JSON.parse('{"__proto__": 1}'), JSON.parse('{"__proto__": 2}')), false);
    assert.equal(sameJson(Object.create({ inherited: 1 }), {}), false, "an inherited key is no match");
  });
});

describe("the cache's most recent entry", () => {
  it("is found again without reordering, and a changed schema is no hit", () => {
    setConfigValidatorCache(true);
    const first = configValidator(items(), new WorkBudget());
    assert.equal(configValidator(items(), new WorkBudget()), first);
    assert.equal(configValidator(items(), new WorkBudget()), first);
    const changed = items();
    (changed[1] as ConfigItem).integer = { min: 0, max: 1 };
    const second = configValidator(changed, new WorkBudget());
    assert.notEqual(second, first);
    assert.equal(configValidator(items(), new WorkBudget()), first);
    assert.equal(configValidator(structuredClone(changed), new WorkBudget()), second);
  });
});
