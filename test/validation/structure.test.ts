import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatFieldError } from "../../src/admission/field-errors.js";
import { WorkBudget } from "../../src/budget/work-budget.js";
import { goQuote } from "../../src/go/strconv/go-strings.js";
import { offlineKinds } from "../../src/offline/kinds.js";
import {
  compileStructureCheckers,
  type StructureVerdict,
  structureChecker,
} from "../../src/validation/structure.js";
import { helmModule } from "../support/modules.js";

const schema = JSON.parse(
  readFileSync(new URL("../../schemas/dist/module.schema.json", import.meta.url), "utf8"),
);
const checker = structureChecker(schema);
const check = (object: unknown, budget = new WorkBudget()) => checker(object, budget);

/**
 * A verdict's counted errors, each built from its place (what ratcheting builds of them), as text,
 * sorted; with `build` false, only how many each place holds (300,000 built cost 18 s).
 */
function everyCounted(verdict: StructureVerdict, build = true): string[] {
  const counted = verdict.errors.at(-1)?.counted;
  if (!counted) return [];
  let placed = counted.singles.size;
  const built = build ? Array.from({ length: counted.singles.size }, (_, k) => counted.singles.build(k)) : [];
  for (const entries of counted.entries) {
    let visited = 0;
    entries.visitWhile((key, count) => {
      visited += count;
      assert.equal(entries.countAt(key), count, `${entries.container}: ${String(key)} counted alike`);
      if (!build) return true;
      const made = entries.errorsAt(key);
      assert.equal(made.length, count, `${entries.container}: ${String(key)}`);
      built.push(...made);
      return true;
    });
    assert.equal(visited, entries.total, `${entries.container}: the entries visited hold its total`);
    placed += visited;
  }
  assert.equal(placed, verdict.errors.at(-1)?.omitted, "each counted error placed");
  return build ? built.map(formatFieldError).sort() : [`${placed} placed`];
}

/** A verdict with its count's places as the errors they build (functions and paths compare by value). */
const comparable = (verdict: StructureVerdict, build = true) => ({
  ...verdict,
  errors: verdict.errors.map(({ counted: _, ...error }) => error),
  counted: everyCounted(verdict, build),
});

describe("structure check against the generated schema", () => {
  it("passes a valid Module", () => {
    assert.deepEqual(check(helmModule()), { errors: [], unknownFields: [], shape: [] });
  });

  it("reports every type, enum, bound and required problem with its field path, in the API server's words", () => {
    const module = helmModule() as unknown as Record<string, any>;
    module.spec.workspace = {};
    module.spec.hibernated = "yes";
    module.spec.custom = { image: "x", permissions: ["root"] };
    module.config[1].integer.min = "0";
    module.spec.helm.releaseName = "x".repeat(60);
    assert.deepEqual(check(module).errors.map(formatFieldError).sort(), [
      'config[1].integer.min: Invalid value: "string": config[1].integer.min in body must be of type integer: "string"',
      'spec.custom.permissions[0]: Unsupported value: "root": supported values: "workspace", "controller"',
      // kube-openapi stops at a string's first failing keyword: maxLength, then minLength, then pattern.
      "spec.helm.releaseName: Too long: may not be more than 53 bytes",
      'spec.hibernated: Invalid value: "string": spec.hibernated in body must be of type boolean: "string"',
      "spec.workspace.name: Required value",
    ]);
  });

  it("reports unknown fields separately: the API server would prune them", () => {
    const module = helmModule() as unknown as Record<string, any>;
    module.spec.helm.relaseName = "typo";
    module.config[0].option.defualt = "x";
    const verdict = check(module);
    assert.deepEqual(verdict.errors, []);
    assert.deepEqual(verdict.shape, []);
    assert.deepEqual(verdict.unknownFields.map(String), ["config[0].option.defualt", "spec.helm.relaseName"]);
    // Kept as paths, so that `validate` finds the line of a key with a dot in it.
    assert.deepEqual(verdict.unknownFields[1]?.steps, [
      { as: "field", name: "spec" },
      { as: "field", name: "helm" },
      { as: "field", name: "relaseName" },
    ]);
  });

  it("leaves free-form fields free: raw values, spec.config, output values", () => {
    const module = helmModule() as unknown as Record<string, any>;
    module.spec.helm.values = [{ raw: { anything: { at: ["all"] } } }];
    module.spec.helm.outputs = [
      { name: "o", value: { nested: 1 } },
      { name: "p", value: 3 },
    ];
    module.spec.config.extra = { deep: true };
    assert.deepEqual(check(module), { errors: [], unknownFields: [], shape: [] });
  });

  it("format: uri as the API server reads it (Go 1.26's url.ParseRequestURI): a /path or a scheme, nothing relative", () => {
    const uri = structureChecker({ type: "object", properties: { link: { type: "string", format: "uri" } } });
    const passing = ["https://example.com/a", "/keda.yaml", "ftp://host/x", "mailto:team@example.com"];
    // Go 1.26 takes an IPv4-mapped IPv6 literal (1.24.9 did not); a list passes kube-openapi's type check.
    for (const link of [...passing, "ssh://[::ffff:1.2.3.4]/x", "https://example.com/a#b c", []]) {
      assert.deepEqual(uri({ link }, new WorkBudget()).errors, [], JSON.stringify(link));
    }
    for (const link of [
      "keda.yaml",
      "",
      "example.com/a",
      "https://example.com/\u0007",
      "https://a:1:2/",
      "x://h[::1]/",
    ]) {
      assert.deepEqual(uri({ link }, new WorkBudget()).errors.map(formatFieldError), [
        `link: Invalid value: ${goQuote(link)}: link in body must be of type uri: ${goQuote(link)}`,
      ]);
    }
    // A number where a string with a format is expected is judged by its format (kube-openapi's typeValidator).
    assert.deepEqual(uri({ link: 2.5 }, new WorkBudget()).errors.map(formatFieldError), [
      'link: Invalid value: "float64": link in body must be of type uri: "float64"',
    ]);
  });
});

describe("one check per object and schema", () => {
  it("checkers of one schema share their verdicts: validate's schema layer and the kind's gate check an object once", () => {
    const [offlineModule] = offlineKinds().filter((kind) => kind.kind.kind === "Module");
    assert.ok(offlineModule);
    const module = helmModule() as unknown as Record<string, any>;
    module.spec.workspace = {};
    const budget = new WorkBudget();
    const first = offlineModule.checkStructure(module, budget);
    assert.ok(first.errors.length > 0);
    const spent = budget.spent;
    // The kind's own gate compiles the same text (schemas/dist), as the kind's index.ts does.
    assert.equal(structureChecker(structuredClone(schema))(module, budget), first, "the verdict is reused");
    assert.equal(budget.spent, spent, "and not charged again");
    assert.notEqual(check(structuredClone(module), budget), first, "another object is checked on its own");
  });
});

describe("compiling structure checkers", () => {
  it("waits for the first check, or for compileStructureCheckers", () => {
    const broken = { type: "object", properties: { a: { $ref: "#/definitions/missing" } } };
    const check = structureChecker(broken);
    assert.throws(() => compileStructureCheckers(), /missing/);
    assert.throws(
      () => check({ a: 1 }, new WorkBudget()),
      /missing/,
      "a schema that does not compile fails when used",
    );
    const fine = structureChecker({ type: "object", properties: { a: { type: "string" } } });
    compileStructureCheckers();
    assert.deepEqual(fine({ a: "x" }, new WorkBudget()), { errors: [], unknownFields: [], shape: [] });
    assert.equal(fine({ a: 1 }, new WorkBudget()).errors.length, 1);
  });
});

describe("structure check: bounded errors (issue 21)", () => {
  it("builds at most the answer's 100 errors and counts the rest", () => {
    const module = helmModule() as unknown as Record<string, any>;
    module.spec.helm.migration = { pvcs: Array(5000).fill(1) };
    const { errors } = check(module);
    assert.equal(errors.length, 100);
    assert.equal(String(errors[98]?.field), "spec.helm.migration.pvcs[98]");
    assert.equal(errors[99]?.omitted, 5000 - 99);
    assert.equal(errors[99]?.detail, `... and ${5000 - 99} more errors`);
  });
});

describe("structure check: long lists and big maps cut, the rest checked one by one (issue 21)", () => {
  // A schema with each shape the cut handles: lists of objects (with a nested list), a map of typed
  // values, a map that takes no unknown keys, named properties among many others, and a list with
  // minItems; and one under an allOf, which is never cut.
  const shapes = {
    type: "object",
    required: ["items"],
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", minLength: 1 },
            size: { type: "integer", minimum: 0 },
            tags: { type: "array", items: { type: "string" } },
          },
          additionalProperties: false,
        },
      },
      labels: { type: "object", additionalProperties: { type: "string", maxLength: 3 } },
      strict: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
      named: {
        type: "object",
        required: ["must"],
        properties: { must: { type: "integer" } },
        additionalProperties: { type: "boolean" },
      },
      several: { type: "array", minItems: 2, items: { type: "integer" } },
      guarded: { allOf: [{ type: "array", items: { type: "integer" } }] },
    },
  };
  const value = fc.oneof(fc.string({ maxLength: 5 }), fc.integer({ min: -2, max: 9 }), fc.boolean());
  const key = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "must", "__proto__", "x/y", "t~1");
  const object = fc.record(
    {
      items: fc.array(
        fc.record(
          { name: value, size: value, tags: fc.array(value, { maxLength: 6 }), other: value },
          { requiredKeys: [] },
        ),
        { maxLength: 12 },
      ),
      labels: fc.dictionary(key, value, { maxKeys: 12 }),
      strict: fc.dictionary(key, value, { maxKeys: 12 }),
      named: fc.dictionary(key, value, { maxKeys: 12 }),
      several: fc.array(value, { maxLength: 8 }),
      guarded: fc.array(value, { maxLength: 8 }),
    },
    { requiredKeys: [] },
  );
  const whole = structureChecker(shapes, Number.POSITIVE_INFINITY);
  const cut = structureChecker(shapes, 2);
  const sorted = (verdict: ReturnType<typeof whole>) => ({
    errors: verdict.errors.map(formatFieldError).sort(),
    unknownFields: verdict.unknownFields.map(String).sort(),
    shape: verdict.shape.map((problem) => `${problem.keyword} /${problem.tokens.join("/")}`).sort(),
  });

  it("finds exactly the errors, unknown fields and shape problems of the whole check", () => {
    fc.assert(
      fc.property(object, (generated) => {
        // JSON's own objects, as the server parses them (a __proto__ key is an own property).
        const parsed = JSON.parse(JSON.stringify(generated));
        // Both checkers share one compilation and its verdicts: each checks the object afresh.
        assert.deepEqual(
          sorted(cut(parsed, new WorkBudget(), true)),
          sorted(whole(parsed, new WorkBudget(), true)),
        );
      }),
      { numRuns: 400 },
    );
  });

  it("counts exactly past the answer's bound: 300,000 wrong-typed items, the first 100 shown", () => {
    const module = helmModule() as unknown as Record<string, any>;
    module.spec.helm.migration = { pvcs: Array(300_000).fill(1) };
    module.spec.workspace = {};
    const { errors, shape } = check(module);
    assert.equal(errors.length, 100);
    assert.equal(String(errors[0]?.field), "spec.helm.migration.pvcs[0]");
    // spec.workspace.name's error is counted among the rest, as the whole check's order puts it.
    assert.equal(errors[99]?.omitted, 300_000 + 1 - 99);
    // The first 1,000 problems one by one, the rest as the value that holds them all (with
    // spec.workspace's, spec), as the whole check makes it.
    assert.equal(shape.length, 1001);
    assert.deepEqual(shape.at(-1), { tokens: ["spec"], keyword: "type" });
    assert.deepEqual(
      comparable(check(module), false),
      comparable(structureChecker(schema, Number.POSITIVE_INFINITY)(module, new WorkBudget(), true), false),
    );
  });

  it("counts objects past both bounds as the whole check does: several errors in one, unknown fields among them", () => {
    // Past 100 errors and 1,000 shape problems each entry is checked once by a pass that describes no
    // error: the count, the unknown fields and the value that holds the problems are the whole check's.
    const list = {
      type: "object",
      properties: {
        channels: {
          type: "array",
          items: {
            type: "object",
            required: ["channel", "version"],
            properties: {
              channel: { type: "string", pattern: "^[a-z]+$", minLength: 3, maxLength: 8 },
              version: { type: "string", pattern: "^[0-9.]+$" },
              weight: { type: "integer", minimum: 0 },
            },
            additionalProperties: false,
          },
        },
      },
    };
    // Valid, one error, two, type, required and minimum, an unknown field. (No string fails two of
    // maxLength, minLength and pattern: the whole check reports the first, as kube-openapi does, and
    // the entries past both bounds count each.)
    const entries = [
      { channel: "fast", version: "1.0" },
      { channel: "fast9", version: "1.0" },
      { channel: "ab", version: "1.0.0.0.0.0", weight: -2 },
      { channel: "abcdefghij", version: "1.0-rc" },
      { channel: 7, version: "1.0", weight: 1.5 },
      { version: "x", weight: -1 },
      { channel: "regular", version: "1.0", extra: true },
      "neither",
    ];
    for (const length of [1_050, 5_000]) {
      const object = {
        channels: Array.from({ length }, (_, i) => entries[(i * 3 + (i >> 4)) % entries.length]),
      };
      const cut = structureChecker(list)(object, new WorkBudget(), true);
      const whole = structureChecker(list, Number.POSITIVE_INFINITY)(object, new WorkBudget(), true);
      assert.deepEqual(sorted(cut), sorted(whole), `${length} entries`);
      assert.deepEqual(comparable(cut).errors.at(-1), comparable(whole).errors.at(-1));
      assert.deepEqual(everyCounted(cut), everyCounted(whole));
      assert.equal(cut.errors.length, 100);
      assert.ok(cut.shape.length > 1000, "past both bounds");
    }
  });

  it("counts a map of type: string past both bounds as the checks do, each kind of value among strings", () => {
    // Past 100 errors and 1,000 shape problems the entries of `{type: string}` are counted without a
    // check: the same verdict as the whole check and as the cut check of a schema that checks each one
    // (minLength 0 keeps every string), whatever the values and wherever the strings fall.
    const map = (values: object) => ({
      type: "object",
      properties: { labels: { type: "object", additionalProperties: values } },
    });
    const kinds = [1, "s", null, true, {}, [], 2.5, "", { a: "b" }, ["x"]];
    for (const every of [2, 3, 7]) {
      const labels = Object.fromEntries(
        Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i % every === 0 ? "ok" : kinds[i % kinds.length]]),
      );
      const object = { labels };
      const counted = structureChecker(map({ type: "string", description: "a label" }))(
        object,
        new WorkBudget(),
      );
      const checked = structureChecker(map({ type: "string", minLength: 0 }))(object, new WorkBudget());
      const whole = structureChecker(map({ type: "string" }), Number.POSITIVE_INFINITY)(
        object,
        new WorkBudget(),
      );
      assert.deepEqual(sorted(counted), sorted(checked), `every ${every}`);
      assert.deepEqual(sorted(counted), sorted(whole), `every ${every}`);
      assert.deepEqual(counted.errors.at(-1)?.omitted, checked.errors.at(-1)?.omitted);
      assert.deepEqual(everyCounted(counted), everyCounted(whole), `every ${every}`);
      // Past both bounds indeed: 100 errors shown (the last the count of the rest), 1,000 problems and one.
      assert.equal(counted.errors.length, 100, `every ${every}`);
      assert.equal(counted.shape.length, 1001, `every ${every}`);
    }
  });
});
