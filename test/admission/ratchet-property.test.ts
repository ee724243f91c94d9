import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { admissionResponse } from "../../src/admission/answer.js";
import { causeType, type FieldError, formatField } from "../../src/admission/field-errors.js";
import { judgeValidation, validate } from "../../src/admission/handler.js";
import { unchangedAt } from "../../src/admission/ratchet.js";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { beginReview } from "../../src/admission/review-context.js";
import { kindRegistrations } from "../../src/resources/index.js";
import {
  type KindCase,
  type Kube,
  loadRatchetGenerators,
  type RatchetGenerators,
  ratchetGaps,
  type Violation,
} from "../support/ratchet-generators.js";

// ---- the cases: every registered kind's, from test/resources/<name>/ratchet-generators.ts ----------

/** A case with the kind its registration builds from the generators' dependencies. */
interface BuiltCase extends Omit<KindCase, "kind"> {
  kind: ResourceKind;
}

function builtCases(generators: RatchetGenerators, create: (typeof kindRegistrations)[number]["create"]) {
  const built = create(generators.dependencies);
  return generators.cases.map((kindCase): BuiltCase => {
    const kind = kindCase.kind ? built.find((k) => k.kind === kindCase.kind) : built[0];
    assert.ok(
      kind && (kindCase.kind || built.length === 1),
      `${kindCase.name}: which kind? built ${built.length}`,
    );
    return { ...kindCase, kind };
  });
}

const loaded = await Promise.all(
  kindRegistrations.map(async (registration) => ({
    registration,
    generators: await loadRatchetGenerators(registration.name),
  })),
);
const cases: BuiltCase[] = loaded.flatMap(({ registration, generators }) =>
  generators ? builtCases(generators, registration.create) : [],
);

// ---- the oracle -----------------------------------------------------------------------------------

const request = (kind: ResourceKind, object: Kube, oldObject?: Kube): AdmissionRequest => ({
  uid: "property",
  kind: { group: kind.group, version: kind.version, kind: kind.kind },
  namespace: object.metadata?.namespace,
  name: object.metadata?.name,
  operation: oldObject ? "UPDATE" : "CREATE",
  object,
  ...(oldObject ? { oldObject } : {}),
});

/** A problem as a denial names it: field, cause type and rule. */
const errorKey = (error: FieldError) => `${formatField(error)} | ${causeType(error)} | ${error.rule ?? ""}`;
/** What the review's verdict denies for, read from its structured errors (not the answer's text). */
const deniedKeys = (errors: readonly FieldError[]) => new Set(errors.map(errorKey));

const withViolations = (base: Kube, violations: Violation[]): Kube => {
  const object = structuredClone(base);
  for (const violation of violations) violation.apply(object);
  return object;
};

/** An update of metadata only: what controllers do to objects they must finish with. */
const housekeepingEdit = (object: Kube, seed: number) => {
  object.metadata.labels = { ...object.metadata.labels, [`team-${seed % 3}`]: "platform" };
  object.metadata.finalizers = seed % 2 ? ["example.com/cleanup"] : [];
};

/** An object being deleted: its deletionTimestamp set (the API server never unsets it) and a finalizer. */
const beingDeleted = (object: Kube) => {
  object.metadata.deletionTimestamp = "2026-11-25T20:00:00Z";
  object.metadata.finalizers = ["example.com/cleanup"];
};
const contentOf = (object: Kube) => {
  const { metadata: _m, status: _s, ...content } = object;
  return content;
};

async function stateErrors(kind: ResourceKind, object: Kube, operation: "CREATE" | "UPDATE") {
  const base = request(kind, object);
  const verdict = await kind.validator?.validate(
    object,
    beginReview({ ...base, operation, oldObject: object }),
  );
  return verdict?.errors ?? [];
}

async function transitionErrors(kind: ResourceKind, oldObject: Kube, object: Kube) {
  const verdict = await kind.validator?.validateTransition?.(
    oldObject,
    object,
    beginReview(request(kind, object, oldObject)),
  );
  return verdict?.errors ?? [];
}

/**
 * What an update of `stored` must be denied for, computed from each violation alone (on an object with
 * no other problem), never from the combination: the state errors of each new violation; an old one's
 * only when the update changed the value at its field (KEP-4008's rule: a missing field's value is its
 * object's); when only metadata and status changed, only those at a value the update changed (an
 * annotation set to a value a rule refuses), whether or not the object is being deleted; and every
 * update-only error.
 */
async function expectedDenial(
  kindCase: BuiltCase,
  legacy: Violation[],
  added: Violation[],
  stored: Kube,
  updated: Kube,
): Promise<Set<string>> {
  const { kind } = kindCase;
  const base = kindCase.base();
  const expected = new Set<string>();
  const housekeeping = isDeepStrictEqual(contentOf(stored), contentOf(updated));
  const changed = (error: FieldError) => !unchangedAt(updated, stored, error.field);
  for (const violation of added) {
    for (const error of await stateErrors(kind, withViolations(base, [violation]), "UPDATE"))
      if (!housekeeping || (!error.field.isEmpty && changed(error))) expected.add(errorKey(error));
  }
  for (const violation of legacy) {
    for (const error of await stateErrors(kind, withViolations(base, [violation]), "UPDATE"))
      if (changed(error) && !(housekeeping && error.field.isEmpty)) expected.add(errorKey(error));
  }
  for (const violation of added) {
    for (const error of await transitionErrors(kind, base, withViolations(base, [violation])))
      expected.add(errorKey(error));
  }
  return expected;
}

/** Subsets of the violations no two of which own the same part: legacy ones, then new ones. */
function scenarios(violations: Violation[]) {
  const index = fc.nat({ max: violations.length - 1 });
  return fc
    .record({
      picks: fc.array(fc.tuple(index, fc.constantFrom("legacy", "new", "new")), { maxLength: 8 }),
      housekeeping: fc.option(fc.nat({ max: 100 })),
      deleting: fc.boolean(),
    })
    .map(({ picks, housekeeping, deleting }) => {
      const owned = new Set<string>();
      const legacy: Violation[] = [];
      const added: Violation[] = [];
      for (const [i, role] of picks) {
        const violation = violations[i] as Violation;
        const parts =
          role === "new" ? [...violation.owns, ...(violation.alsoOwnsWhenNew ?? [])] : violation.owns;
        if (parts.some((part) => owned.has(part))) continue;
        if (role === "legacy" && violation.updateOnly) continue;
        for (const part of parts) owned.add(part);
        (role === "legacy" ? legacy : added).push(violation);
      }
      return { legacy, added, housekeeping, deleting };
    });
}

const describeScenario = (
  legacy: Violation[],
  added: Violation[],
  housekeeping: number | null,
  deleting: boolean,
) =>
  `legacy [${legacy.map((x) => `${x.rules}/${x.owns[0]}`)}], new [${added.map((x) => `${x.rules}/${x.owns[0]}`)}]` +
  (housekeeping === null ? "" : `, metadata/status edit ${housekeeping}`) +
  (deleting ? ", being deleted" : "");

const runs = Number(process.env.RATCHET_PROPERTY_RUNS ?? 1000);

describe("ratcheting, a property of every kind: an UPDATE is denied exactly for the problems it introduces", () => {
  for (const kindCase of cases) {
    const { kind } = kindCase;
    describe(kindCase.name, () => {
      it("the base object is valid, and each violation alone fails the rules it is there for", async () => {
        const base = kindCase.base();
        assert.deepEqual(await stateErrors(kind, base, "CREATE"), []);
        assert.deepEqual(await transitionErrors(kind, base, base), []);
        for (const violation of kindCase.violations) {
          const object = withViolations(base, [violation]);
          const found = new Set<string | undefined>([
            ...(await stateErrors(kind, object, "CREATE")).map((error) => error.rule),
            ...(await transitionErrors(kind, base, object)).map((error) => error.rule),
          ]);
          for (const rule of violation.rules) assert.ok(found.has(rule), `${rule}: found ${[...found]}`);
          if (!violation.updateOnly) {
            // A legacy problem is a state problem: the object alone fails some state rule.
            assert.ok((await stateErrors(kind, object, "CREATE")).length > 0, violation.rules.join());
          }
        }
      });

      it("labels, finalizers, annotations of an object with every legacy problem at once: admitted", async () => {
        const owned = new Set<string>();
        const legacy = kindCase.violations.filter((violation) => {
          if (violation.updateOnly || violation.owns.some((part) => owned.has(part))) return false;
          for (const part of violation.owns) owned.add(part);
          return true;
        });
        const stored = withViolations(kindCase.base(), legacy);
        for (const edit of [
          (o: Kube) => Object.assign(o.metadata, { labels: { ...o.metadata.labels, team: "platform" } }),
          (o: Kube) => Object.assign(o.metadata, { finalizers: ["example.com/cleanup"] }),
          (o: Kube) =>
            Object.assign(o.metadata, {
              annotations: { ...o.metadata.annotations, note: "x" },
              deletionTimestamp: "2026-11-25T20:00:00Z",
            }),
        ]) {
          const updated = structuredClone(stored);
          edit(updated);
          const response = await validate(kind, request(kind, updated, stored));
          assert.equal(response.allowed, true, response.status?.message);
          assert.ok((response.warnings ?? []).length >= legacy.length, JSON.stringify(response.warnings));
        }
      });

      it(`${runs} random updates: denied ⇔ something introduced, naming exactly what was`, async () => {
        await fc.assert(
          fc.asyncProperty(
            scenarios(kindCase.violations),
            async ({ legacy, added, housekeeping, deleting }) => {
              const base = kindCase.base();
              const stored = withViolations(base, legacy);
              if (deleting) beingDeleted(stored);
              const updated = withViolations(stored, added);
              if (housekeeping !== null) housekeepingEdit(updated, housekeeping);
              const review = request(kind, updated, stored);
              const verdict = await judgeValidation(kind, review);
              const response = admissionResponse(kind, review, verdict);
              const expected = await expectedDenial(kindCase, legacy, added, stored, updated);
              const what = describeScenario(legacy, added, housekeeping, deleting);
              assert.equal(response.allowed, expected.size === 0, `${what}: ${response.status?.message}`);
              assert.deepEqual([...deniedKeys(verdict.errors)].sort(), [...expected].sort(), what);
              // Every old problem left as it was is still shown.
              let remaining = 0;
              for (const violation of legacy) {
                for (const error of await stateErrors(kind, withViolations(base, [violation]), "UPDATE")) {
                  if (!unchangedAt(updated, stored, error.field)) continue;
                  remaining++;
                  const shown = `already invalid before this update: ${formatField(error)}`;
                  assert.ok(
                    response.warnings?.some((w) => w.startsWith(shown)),
                    `${what}: ${shown} in ${JSON.stringify(response.warnings)}`,
                  );
                }
              }
              if (kindCase.whileInvalid) {
                const said = response.warnings?.some((w) => kindCase.whileInvalid?.test(w)) ?? false;
                assert.equal(said, remaining > 0, `${what}: ${JSON.stringify(response.warnings)}`);
              }
            },
          ),
          { numRuns: runs },
        );
      });
    });
  }
});

describe("every registered kind provides ratchet generators", () => {
  it("each kind in kindRegistrations: a case, and a violation for every error rule it declares", async () => {
    assert.deepEqual(await ratchetGaps(kindRegistrations), []);
  });

  it("a kind registered without them fails, and so does an error rule no violation exercises", async () => {
    const [module] = kindRegistrations;
    assert.ok(module);
    const newKind = { name: "example-kind", rules: [{ id: "example-kind.schema", severity: "error" }] };
    const unexercised = { id: `${module.name}.example-rule`, severity: "error" };
    assert.deepEqual(
      await ratchetGaps([
        ...kindRegistrations,
        newKind,
        { ...module, rules: [...module.rules, unexercised] },
      ]),
      [
        ...(await ratchetGaps(kindRegistrations)),
        "example-kind: no ratchetGenerators exported by test/resources/example-kind/ratchet-generators.ts",
        `${module.name}.example-rule: an error rule of ${module.name} without a violation generator`,
      ],
    );
    // A warning rule needs none; a violation naming a rule the kind does not declare is a gap too.
    const onlyWarnings = { ...module, rules: module.rules.filter((rule) => rule.severity === "warning") };
    const gaps = await ratchetGaps([onlyWarnings]);
    assert.ok(
      gaps.length > 0 && gaps.every((gap) => gap.endsWith(`names a rule ${module.name} does not declare`)),
    );
  });
});
