import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { FieldError } from "../../src/admission/field-errors.js";
import { validate } from "../../src/admission/handler.js";
import { isHousekeeping, splitByOld, valueAt } from "../../src/admission/ratchet.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { RuleId } from "../../src/admission/rule-catalogue.js";
import { FieldPath } from "../../src/base/field-path.js";
import type { Module } from "../../src/generated/module.js";
import { moduleKind } from "../../src/resources/module/index.js";
import { createModuleReleaseMetaKind } from "../../src/resources/modulereleasemeta/index.js";
import { kedaReleaseMeta, releaseMetaReview } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

describe("ratcheting helpers", () => {
  it("finds the value at a field path, or its nearest existing container", () => {
    const object = { config: [{ option: { default: "" } }], metadata: { labels: { "a.b/c": "True" } } };
    assert.equal(valueAt(object, FieldPath.of(["config", 0, "option", "default"])), "");
    assert.equal(valueAt(object, FieldPath.of(["metadata", "labels"]).key("a.b/c")), "True");
    assert.deepEqual(valueAt(object, FieldPath.of(["config", 0, "option", "values"])), { default: "" });
    assert.deepEqual(valueAt(object, FieldPath.of(["config", 3])), object.config);
  });

  it("spares an error only when the old object had the same one and the value at its field is unchanged", () => {
    const error: FieldError = {
      type: "forbidden",
      field: FieldPath.of(["spec", "config", "extra"]),
      detail: "not declared",
    };
    const old = { spec: { config: { extra: "a" } } };
    assert.deepEqual(splitByOld([error], [error], old, structuredClone(old)), {
      introduced: [],
      preexisting: [error],
    });
    const changed = { spec: { config: { extra: "b" } } };
    assert.deepEqual(splitByOld([error], [error], changed, old).introduced, [error]);
    assert.deepEqual(splitByOld([error, error], [error], old, old).introduced, [error], "one spares one");
  });

  it("follows an item a reordered list moved, unchanged: its old problem spares it at its new index", () => {
    const linkError = (index: number): FieldError => ({
      type: "invalid",
      field: FieldPath.of(["spec", "resources", index, "link"]),
      value: "not a url",
      detail: "must be an absolute http or https URL",
    });
    const bad = { name: "raw", link: "not a url" };
    const good = { name: "docs", link: "https://example.com" };
    const old = { spec: { resources: [bad, good] } };
    const reordered = { spec: { resources: [good, bad] } };
    assert.deepEqual(splitByOld([linkError(1)], [linkError(0)], reordered, old).introduced, []);
    const changed = { spec: { resources: [good, { ...bad, link: "still not a url" }] } };
    const changedError = { ...linkError(1), value: "still not a url" };
    assert.deepEqual(splitByOld([changedError], [linkError(0)], changed, old).introduced, [changedError]);
  });

  it("takes an offending value in another key order, or a missing value and null, as the same problem", () => {
    const error = (value: unknown): FieldError => ({
      type: "invalid",
      field: FieldPath.of(["spec", "x"]),
      value,
      detail: "bad",
    });
    const old = { spec: { x: { a: 1, b: 2 } } };
    const reordered = { spec: { x: { b: 2, a: 1 } } };
    assert.equal(
      splitByOld([error({ b: 2, a: 1 })], [error({ a: 1, b: 2 })], reordered, old).introduced.length,
      0,
    );
    const required: FieldError = {
      type: "required",
      field: FieldPath.of(["spec", "y"]),
      detail: "must be set",
    };
    assert.equal(
      splitByOld([required], [{ ...required, value: null } as FieldError], old, old).introduced.length,
      0,
    );
    assert.equal(splitByOld([error({ a: 1 })], [error({ a: 2 })], old, old).introduced.length, 1);
  });

  it("tells housekeeping (metadata, status) from content changes, whether or not the object is being deleted", () => {
    const object = { metadata: { labels: {} }, spec: { a: 1 }, status: { ready: true } };
    const touched = { metadata: { labels: { x: "y" }, finalizers: ["f"] }, spec: { a: 1 }, status: {} };
    assert.equal(isHousekeeping(touched, object), true);
    assert.equal(isHousekeeping({ ...touched, spec: { a: 2 } }, object), false);
    const deleting = {
      ...object,
      metadata: { deletionTimestamp: "2026-11-22T00:00:00Z", finalizers: ["f"] },
    };
    const released = { ...deleting, metadata: { deletionTimestamp: "2026-11-22T00:00:00Z", finalizers: [] } };
    assert.equal(isHousekeeping(released, deleting), true);
    assert.equal(isHousekeeping({ ...deleting, spec: { a: 2 } }, deleting), false);
    assert.equal(isHousekeeping(object, null), false);
  });
});

/**
 * A Module's state as independent choices, each field invalid for some values: the config schema's
 * integer default over the max, its string default failing the regex, its option default outside the
 * values ("" is the zero value the operator's CRD writes: it only warns). spec.config stays as it is
 * (immutable, as in the operator). The release name only changes (an update-only rule); hibernated and
 * labels never break a rule.
 */
const choices = {
  integerDefault: fc.constantFrom(1, 8, 9),
  stringDefault: fc.constantFrom("localhost", "BAD1", "BAD2"),
  optionDefault: fc.constantFrom("21.2.9", "", "x"),
  hibernated: fc.constantFrom(undefined, true, false),
  team: fc.constantFrom(undefined, "a", "b"),
  releaseName: fc.constantFrom("redis-main", "redis-other"),
};
type State = { [K in keyof typeof choices]: (typeof choices)[K] extends fc.Arbitrary<infer V> ? V : never };

const invalid: Record<string, (state: State) => boolean> = {
  integerDefault: (s) => s.integerDefault > 5,
  stringDefault: (s) => s.stringDefault.startsWith("BAD"),
  optionDefault: (s) => s.optionDefault === "x",
};

function moduleOf(state: State): Module {
  const module = helmModule();
  const [version, replicas, host] = module.config ?? [];
  if (version?.option) version.option.default = state.optionDefault;
  if (replicas?.integer) replicas.integer.default = state.integerDefault;
  if (host?.string) host.string.default = state.stringDefault;
  if (state.hibernated !== undefined) module.spec.hibernated = state.hibernated;
  if (state.team !== undefined) module.metadata = { ...module.metadata, labels: { team: state.team } };
  if (module.spec.helm) module.spec.helm.releaseName = state.releaseName;
  return module;
}

describe("ratcheting the items of a map list by their keys (issue 46)", () => {
  const kind = createModuleReleaseMetaKind();
  /** Keda's release meta whose channels are these [channel, version] pairs. */
  const meta = (...channels: [string, string][]) => {
    const object = kedaReleaseMeta();
    object.spec.channels = channels.map(([channel, version]) => ({ channel, version }));
    return object;
  };
  const judged = async (object: unknown, oldObject: unknown) => {
    const request = releaseMetaReview({ operation: "UPDATE", object, oldObject }).request;
    assert.ok(request);
    return validate(kind, request);
  };
  // `Regular` breaks today's pattern: a channel stored before it.
  const stored = meta(["regular", "1.2.0"], ["Regular", "1.2.0"], ["fast", "1.3.0"]);

  it("an update that only reorders the channels, inserts or removes others around the bad one: admitted", async () => {
    for (const channels of [
      [
        ["Regular", "1.2.0"],
        ["fast", "1.3.0"],
        ["regular", "1.2.0"],
      ],
      [
        ["fast", "1.3.0"],
        ["regular", "1.2.0"],
        ["Regular", "1.2.0"],
      ],
      [
        ["beta", "1.4.0"],
        ["regular", "1.2.0"],
        ["fast", "1.3.0"],
        ["Regular", "1.2.0"],
      ],
      [
        ["Regular", "1.2.0"],
        ["fast", "1.3.0"],
      ],
    ] as [string, string][][]) {
      const answer = await judged(meta(...channels), stored);
      assert.equal(answer.allowed, true, `${JSON.stringify(channels)}: ${answer.status?.message}`);
      assert.ok(answer.warnings?.some((w) => w.startsWith("already invalid before this update")));
    }
  });

  it("the bad item moved with another of its fields changed: its unchanged key is still spared", async () => {
    const moved = meta(["fast", "1.3.0"], ["regular", "1.2.0"], ["Regular", "1.4.0"]);
    assert.equal((await judged(moved, stored)).allowed, true);
  });

  it("the bad item's key changed to another bad one: a new item, denied naming it at its index", async () => {
    const changed = meta(["fast", "1.3.0"], ["Reguler", "1.2.0"], ["regular", "1.2.0"]);
    const answer = await judged(changed, stored);
    assert.equal(answer.allowed, false);
    assert.deepEqual(
      answer.status?.details?.causes?.map((cause) => cause.field),
      ["spec.channels[1].channel"],
    );
  });
});

describe("ratcheting, as a property", () => {
  it("denied(update) ⇔ the update gives a field an invalid value it did not have, or changes the release name", async () => {
    await fc.assert(
      fc.asyncProperty(fc.record(choices), fc.record(choices), async (before, after) => {
        const request = admissionReview({
          operation: "UPDATE",
          object: moduleOf(after),
          oldObject: moduleOf(before),
        }).request;
        assert.ok(request);
        const response = await validate(moduleKind, request);
        const newProblems = Object.entries(invalid)
          .filter(
            ([field, isInvalid]) =>
              isInvalid(after) && after[field as keyof State] !== before[field as keyof State],
          )
          .map(([field]) => field);
        const contentUnchanged =
          Object.keys(invalid).every(
            (field) => after[field as keyof State] === before[field as keyof State],
          ) && after.hibernated === before.hibernated;
        const immutableBroken = after.releaseName !== before.releaseName;
        const expectDenied = immutableBroken || (!contentUnchanged && newProblems.length > 0);
        assert.equal(!response.allowed, expectDenied, JSON.stringify({ before, after, response }));
        if (response.allowed) {
          const stillInvalid = Object.values(invalid).filter((isInvalid) => isInvalid(after)).length;
          const ratcheted = (response.warnings ?? []).filter((w) =>
            w.startsWith("already invalid before this update"),
          );
          if (newProblems.length === 0) assert.equal(ratcheted.length, stillInvalid);
        } else if (!immutableBroken) {
          // Only the new problems are causes: one per field that got a new invalid value.
          assert.equal(response.status?.details?.causes?.length, newProblems.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("ratcheting's look at the old object", () => {
  /** A kind whose errors are the object's `problems` ({ field, rule }), recording each call's focus. */
  const recording = () => {
    const calls: { object: unknown; focus: ReadonlySet<string> | undefined }[] = [];
    const kind: ResourceKind = {
      group: "batch.forkspacer.com",
      version: "v1",
      kind: "Module",
      validator: {
        validate: (object, { focus }) => {
          calls.push({ object, focus: focus?.errorsOf });
          const problems = (object as { problems: { field: string; rule?: RuleId }[] }).problems;
          const errors = problems.map(({ field, rule }) => ({
            type: "invalid" as const,
            field: FieldPath.of(field.split(".")),
            value: "bad",
            detail: "wrong",
            ...(rule ? { rule } : {}),
          }));
          return { errors, warnings: [] };
        },
      },
    };
    return { kind, calls };
  };
  const update = (object: unknown, oldObject: unknown) => {
    const request = admissionReview({ operation: "UPDATE", object, oldObject }).request;
    assert.ok(request);
    return request;
  };

  it("asks only for the rules the new object failed, and spares what the old object had", async () => {
    const { kind, calls } = recording();
    const problems = [
      { field: "spec.a", rule: "x.a" },
      { field: "spec.b", rule: "x.b" },
    ];
    const answer = await validate(kind, update({ problems }, { problems }));
    assert.equal(answer.allowed, true, JSON.stringify(answer));
    assert.equal(answer.warnings?.length, 2);
    assert.equal(calls.length, 2);
    assert.equal(calls[0]?.focus, undefined, "the new object is judged whole");
    assert.deepEqual([...(calls[1]?.focus ?? [])].sort(), ["x.a", "x.b"]);
  });

  it("asks for everything when an error has no rule id", async () => {
    const { kind, calls } = recording();
    const problems = [{ field: "spec.a", rule: "x.a" }, { field: "spec.b" }];
    const answer = await validate(kind, update({ problems }, { problems }));
    assert.equal(answer.allowed, true, JSON.stringify(answer));
    assert.equal(calls[1]?.focus, undefined);
  });

  it("does not look at the old object when the new one has no errors", async () => {
    const { kind, calls } = recording();
    const answer = await validate(kind, update({ problems: [] }, { problems: [{ field: "spec.a" }] }));
    assert.equal(answer.allowed, true);
    assert.equal(calls.length, 1);
  });

  it("does not look at the old object when every error stands at a value the update changed", async () => {
    const { kind, calls } = recording();
    const problems = [
      { field: "spec.a", rule: "x.a" },
      { field: "spec.b", rule: "x.b" },
    ];
    const answer = await validate(
      kind,
      update({ problems, spec: { a: 1, b: 1, c: 1 } }, { problems, spec: { a: 2, b: 2, c: 1 } }),
    );
    assert.equal(answer.allowed, false);
    assert.equal(answer.status?.details?.causes?.length, 2);
    assert.equal(calls.length, 1, "an error at a changed value is introduced whatever the old object had");
    // One error at an unchanged value: the old object is judged, and spares it.
    const spared = await validate(
      kind,
      update({ problems, spec: { a: 1, b: 1, c: 1 } }, { problems, spec: { a: 2, b: 1, c: 1 } }),
    );
    assert.equal(spared.allowed, false);
    assert.equal(spared.status?.details?.causes?.length, 1);
    assert.equal(spared.warnings?.length, 1);
    assert.equal(calls.length, 3);
  });
});

describe("field paths", () => {
  it("render as Kubernetes renders them, and keep their segments", () => {
    const path = FieldPath.root("metadata").child("labels").key("app.kubernetes.io/name");
    assert.equal(path.toString(), "metadata.labels[app.kubernetes.io/name]");
    assert.deepEqual(path.segments, ["metadata", "labels", "app.kubernetes.io/name"]);
    assert.equal(FieldPath.of(["config", 2, "alias"]).toString(), "config[2].alias");
    assert.deepEqual(FieldPath.of(["config", 2, "alias"]).segments, ["config", "2", "alias"]);
    assert.equal(FieldPath.empty.toString(), "");
    assert.equal(FieldPath.root("").isEmpty, true);
    assert.equal(JSON.stringify({ field: path }), '{"field":"metadata.labels[app.kubernetes.io/name]"}');
  });

  it("know what lies within them, step by step rather than by text", () => {
    const spec = FieldPath.root("spec");
    assert.equal(spec.child("custom").within(spec), true);
    assert.equal(spec.within(spec), true);
    assert.equal(FieldPath.root("specs").within(spec), false);
    assert.equal(spec.within(FieldPath.empty), true);
    // A key with a dot is one step: `[a.b]` is not within `a`.
    assert.equal(FieldPath.root("m").key("a.b").within(FieldPath.root("m").child("a")), false);
  });

  it("keep any segment as it was given, dots and brackets included", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.nat({ max: 4 })), { maxLength: 12 }), (segments) => {
        const path = FieldPath.of(segments);
        assert.deepEqual(path.segments, segments.map(String));
        assert.equal(valueAt(nested(segments), path), "leaf");
      }),
      { numRuns: 2000 },
    );
  });
});

/** An object with "leaf" at the end of `segments` (an array where the segment is a number). */
function nested(segments: (string | number)[]): unknown {
  let value: unknown = "leaf";
  for (const segment of [...segments].reverse()) {
    if (typeof segment === "number") {
      const list: unknown[] = Array.from({ length: segment + 1 }, () => null);
      list[segment] = value;
      value = list;
    } else {
      const map: Record<string, unknown> = {};
      Object.defineProperty(map, segment, { value, enumerable: true, writable: true, configurable: true });
      value = map;
    }
  }
  return value;
}
