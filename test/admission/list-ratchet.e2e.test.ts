import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import type { AdmissionResponse } from "../../src/admission/review.js";
import { limits } from "../../src/base/limits.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaReleaseMeta, releaseMetaReview } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate, templateReview } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";

const templatePath = "/validate-operator-kyma-project-io-v1beta2-moduletemplate";
const modulePath = "/validate-batch-forkspacer-com-v1-module";

type Editable = Record<string, any>;

/**
 * A rule lists the first `limits.listErrors` bad items of a list and counts the rest in one error
 * ("N more items are ..."). On UPDATE exactly the problems the update introduces deny: each item's
 * problem is ratcheted, listed or counted, never the count's text (issue 41, noticed at stop 47).
 */
describe("ratcheting the items of a bounded error list, through serve", { timeout: 120_000 }, () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  const bad = limits.listErrors + 10;
  const template = (links: (i: number) => string, count = bad) => {
    const object = kedaTemplate() as unknown as Editable;
    object.spec.resources = Array.from({ length: count }, (_, i) => ({ name: `r${i}`, link: links(i) }));
    return object;
  };
  const ftp = (i: number) => `ftp://example.com/${i}.yaml`;
  const templateUpdate = async (object: unknown, oldObject: unknown): Promise<AdmissionResponse> => {
    const reply = await server.post(templatePath, templateReview({ operation: "UPDATE", object, oldObject }));
    assert.equal(reply.status, 200, reply.text);
    return reply.json.response;
  };

  it("admits an update that fixes one of 60 bad links (the count changes, nothing is introduced)", async () => {
    const old = template(ftp);
    const fixed = template((i) => (i === 3 ? "https://example.com/3.yaml" : ftp(i)));
    const response = await templateUpdate(fixed, old);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    assert.ok(response.warnings?.some((w) => /already invalid before this update/.test(w)));
  });

  it("admits an update that fixes a bad link the old object's answer only counted", async () => {
    const old = template(ftp);
    const fixed = template((i) => (i === bad - 1 ? "https://example.com/last.yaml" : ftp(i)));
    assert.equal((await templateUpdate(fixed, old)).allowed, true);
  });

  it("denies exactly the bad link an update adds beside 60 old ones", async () => {
    const old = template(ftp);
    const added = template((i) => (i === 3 ? "https://example.com/3.yaml" : ftp(i)), bad + 1);
    const response = await templateUpdate(added, old);
    assert.equal(response.allowed, false);
    const causes = response.status?.details?.causes ?? [];
    assert.deepEqual(
      causes.map((cause) => cause.field),
      [`spec.resources[${bad}].link`],
    );
  });

  it("counts only the introduced bad links past the listed ones", async () => {
    const old = template(ftp);
    // 55 of the 60 changed to other bad links: 50 listed, 5 counted.
    const changed = template((i) => (i < 55 ? `ftp://example.com/changed/${i}.yaml` : ftp(i)));
    const response = await templateUpdate(changed, old);
    assert.equal(response.allowed, false);
    const causes = response.status?.details?.causes ?? [];
    assert.equal(causes.length, limits.listErrors + 1);
    assert.match(
      causes.at(-1)?.message ?? "",
      /^Invalid value: "?5 more items are not absolute http, https or oci URLs/,
    );
  });

  const selection = (choices: string[]) => {
    const module = helmModule() as unknown as Editable;
    module.config = [
      { name: "Choice", alias: "choice", multipleOptions: { values: ["a", "b"], default: choices } },
    ];
    return module;
  };
  const unknown = Array.from({ length: bad }, (_, i) => `x${i}`);
  const moduleUpdate = async (object: unknown, oldObject: unknown): Promise<AdmissionResponse> => {
    const reply = await server.post(modulePath, admissionReview({ operation: "UPDATE", object, oldObject }));
    assert.equal(reply.status, 200, reply.text);
    return reply.json.response;
  };

  it("admits a Module update that fixes one of 60 unsupported selections", async () => {
    const old = selection(unknown);
    const oldResponse = await server.post(modulePath, admissionReview({ operation: "CREATE", object: old }));
    assert.equal(oldResponse.json.response.allowed, false, "the old Module is invalid on its own");
    const fixed = selection(unknown.map((choice, i) => (i === 0 ? "a" : choice)));
    const response = await moduleUpdate(fixed, old);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
  });

  it("denies a Module update that adds an unsupported selection beside 60", async () => {
    const old = selection(unknown);
    const response = await moduleUpdate(selection([...unknown, "new"]), old);
    assert.equal(response.allowed, false);
    assert.deepEqual(
      (response.status?.details?.causes ?? []).map((cause) => cause.field),
      [`config[0].multipleOptions.default[${bad}]`],
    );
  });

  // Counted items at unchanged values are paired with the old object's by their findings, unbuilt
  // (an UPDATE keeping 25,000 bad links built and compared 50,000 errors): the verdict must be what
  // comparing every item gives. Names are unique; the old and new lists are drawn independently from
  // a small pool of names and links, reordered, so that kept, changed, moved, added and removed items
  // all occur past the listed ones.
  it("pairs counted items by finding: denied exactly for the bad links the update introduces", async () => {
    const link = fc.constantFrom("ftp://a/1", "ftp://a/2", "ftp://b/1", "https://example.com/ok.yaml");
    const item = fc.record({ name: fc.integer({ min: 0, max: 299 }), link });
    // An old list, and the new one made of it: a shuffled subset (items moved and removed), some links
    // changed, some items added; most items keep their bad link, past the listed ones on both sides.
    const update = fc
      .uniqueArray(item, { minLength: 100, maxLength: 220, selector: (entry) => entry.name })
      .chain((before) =>
        fc.tuple(
          fc.constant(before),
          fc.shuffledSubarray(before, { minLength: Math.max(0, before.length - 8) }),
          fc.array(fc.tuple(fc.nat(), link), { maxLength: 6 }),
          fc.uniqueArray(item, { maxLength: 6, selector: (entry) => entry.name }),
        ),
      )
      .map(([before, kept, edits, added]) => {
        const after = kept.map((entry) => ({ ...entry }));
        for (const [at, to] of edits)
          if (after.length > 0) (after[at % after.length] as { link: string }).link = to;
        const names = new Set(after.map((entry) => entry.name));
        return { before, after: [...after, ...added.filter((entry) => !names.has(entry.name))] };
      });
    const isBad = (value: string) => value.startsWith("ftp://");
    await fc.assert(
      fc.asyncProperty(update, async ({ before, after }) => {
        const object = (list: { name: number; link: string }[]) => {
          const template = kedaTemplate() as unknown as Editable;
          template.spec.resources = list.map((entry) => ({ name: `r${entry.name}`, link: entry.link }));
          return template;
        };
        const oldLinks = new Map(before.map((entry) => [entry.name, entry.link]));
        const introduced = after.flatMap((entry, i) =>
          isBad(entry.link) && oldLinks.get(entry.name) !== entry.link ? [`spec.resources[${i}].link`] : [],
        );
        const response = await templateUpdate(object(after), object(before));
        assert.equal(response.allowed, introduced.length === 0, JSON.stringify(response.status));
        if (introduced.length === 0) return;
        const causes = response.status?.details?.causes ?? [];
        const listed = causes.filter((cause) => !/more items are/.test(cause.message ?? ""));
        assert.equal(listed.length, Math.min(introduced.length, limits.listErrors));
        for (const cause of listed) assert.ok(introduced.includes(cause.field ?? ""), cause.field);
        const more = introduced.length - limits.listErrors;
        if (more > 0)
          assert.match(causes.at(-1)?.message ?? "", new RegExp(`^Invalid value: "?${more} more items`));
      }),
      { numRuns: 60, seed: 41 },
    );
  });

  // The schema check builds `limits.causes` errors and counts the rest ("... and N more errors"): each
  // counted one is ratcheted at its value as the listed ones are, never the count's text (session 14
  // found an update keeping 150 wrong-typed channels denied for "... and 51 more errors").
  const releaseMetaPath = "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta";
  const wrongTyped = (count: number, changed = (_i: number) => false) => {
    const object = kedaReleaseMeta() as unknown as Editable;
    object.spec.channels = Array.from({ length: count }, (_, i) => ({
      channel: `c${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`,
      version: changed(i) ? 2 : 1,
    }));
    return object;
  };
  const releaseMetaUpdate = async (object: unknown, oldObject: unknown): Promise<AdmissionResponse> => {
    const review = releaseMetaReview({ operation: "UPDATE", object, oldObject });
    const reply = await server.post(releaseMetaPath, review);
    assert.equal(reply.status, 200, reply.text);
    return reply.json.response;
  };

  it("admits an update that keeps 150 wrong-typed channels the schema check only counted", async () => {
    const old = wrongTyped(150);
    const renamed = structuredClone(old);
    renamed.spec.ocmComponentName = "kyma-project.io/module/keda-renamed";
    const response = await releaseMetaUpdate(renamed, old);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    const warnings = response.warnings ?? [];
    assert.ok(
      warnings.some((w) => /^already invalid before this update: spec\.channels\[0\]\.version/.test(w)),
    );
  });

  it("denies exactly the counted schema errors an update introduces, by count", async () => {
    const old = wrongTyped(150);
    // Channels 120..124 get another wrong value (2 for 1): five errors past the listed 100, introduced.
    const changed = wrongTyped(150, (i) => i >= 120 && i < 125);
    const response = await releaseMetaUpdate(changed, old);
    assert.equal(response.allowed, false);
    const causes = response.status?.details?.causes ?? [];
    assert.deepEqual(
      causes.map((cause) => cause.field),
      [120, 121, 122, 123, 124].map((i) => `spec.channels[${i}].version`),
    );
  });

  /**
   * Whether an answer denies for exactly `introduced` (fields) by count, listed ones and `... and N more
   * errors` together; the listed causes' fields, for the caller to place.
   */
  const deniedExactly = (response: AdmissionResponse, introduced: readonly string[]): string[] => {
    assert.equal(response.allowed, introduced.length === 0, JSON.stringify(response.status));
    const causes = response.status?.details?.causes ?? [];
    const more = /^Too many: \.\.\. and (\d+) more errors/.exec(causes.at(-1)?.message ?? "");
    const listed = (more ? causes.slice(0, -1) : causes).map((cause) => cause.field ?? "");
    assert.equal(listed.length + Number(more?.[1] ?? 0), introduced.length, causes.at(-1)?.message);
    return listed;
  };

  it("ratchets the schema check's counted errors exactly: each at its value, items moved, changed or added", async () => {
    // A channel's version: valid, or of the wrong type (1 or 2: another wrong value is a change).
    const version = fc.constantFrom<string | number>("1.0.0", 1, 1, 2);
    const item = fc.record({ key: fc.integer({ min: 0, max: 399 }), version });
    const edit = fc.record({ at: fc.nat(), version, extra: fc.boolean() });
    // With a head of 1,000 wrong-typed items first, the check is past both its bounds (100 errors,
    // 1,000 problems) within the first 1,000 items, and counts the items after them entry by entry.
    const head = (size: number) => Array.from({ length: size }, (_, i) => ({ key: 1000 + i, version: 1 }));
    const update = fc
      .tuple(
        fc.constantFrom(0, 1000),
        fc.uniqueArray(item, { minLength: 100, maxLength: 220, selector: (entry) => entry.key }),
      )
      .chain(([size, tail]) =>
        fc.tuple(
          fc.constant([...head(size), ...tail]),
          fc.constant(head(size)),
          fc.shuffledSubarray(tail, { minLength: Math.max(0, tail.length - 8) }),
          fc.array(edit, { maxLength: 12 }),
          fc.uniqueArray(item, { maxLength: 12, selector: (entry) => entry.key }),
        ),
      )
      .map(([before, keptHead, kept, edits, added]) => {
        const after: { key: number; version: string | number; extra?: string }[] = [...keptHead, ...kept].map(
          (e) => ({ ...e }),
        );
        // An edit changes an item's version, or adds a field beside it (the item changes, its version not).
        for (const { at, version: to, extra } of edits) {
          const entry = after[at % Math.max(1, after.length)];
          if (!entry) continue;
          if (extra) entry.extra = "x";
          else entry.version = to;
        }
        const keys = new Set(after.map((entry) => entry.key));
        return { before, after: [...after, ...added.filter((entry) => !keys.has(entry.key))] };
      });
    const channel = (key: number) =>
      `ch${String.fromCharCode(97 + (key % 26), 97 + (Math.floor(key / 26) % 26), 97 + Math.floor(key / 676))}`;
    const object = (list: readonly { key: number; version: string | number; extra?: string }[]) => {
      const meta = kedaReleaseMeta() as unknown as Editable;
      meta.spec.channels = list.map(({ key, ...rest }) => ({ channel: channel(key), ...rest }));
      return meta;
    };
    await fc.assert(
      fc.asyncProperty(update, async ({ before, after }) => {
        const oldVersions = new Map(before.map((entry) => [entry.key, entry.version]));
        // KEP-4008: a wrong-typed version is introduced unless the old item of the same key had the same.
        const introduced = after.flatMap((entry, i) =>
          typeof entry.version === "number" && oldVersions.get(entry.key) !== entry.version
            ? [`spec.channels[${i}].version`]
            : [],
        );
        const listed = deniedExactly(await releaseMetaUpdate(object(after), object(before)), introduced);
        assert.deepEqual(listed, introduced.slice(0, listed.length));
      }),
      { numRuns: 40, seed: 42, endOnFailure: true },
    );
  });

  it("ratchets the schema check's counted errors in a map exactly: labels kept, changed, removed or added", async () => {
    // A label's value: valid, or of the wrong type (1 or 2: another wrong value is a change).
    const value = fc.constantFrom<string | number>("ok", 1, 1, 2);
    const labels = fc.dictionary(
      fc.integer({ min: 0, max: 399 }).map((n) => `k${n}`),
      value,
      { minKeys: 100, maxKeys: 220 },
    );
    // A head of 1,000 wrong-typed labels first: past both bounds, the labels after them counted one by one.
    const head = (size: number) => Object.fromEntries(Array.from({ length: size }, (_, i) => [`h${i}`, 1]));
    const update = fc.tuple(fc.constantFrom(0, 1000), labels).chain(([size, tail]) =>
      fc.tuple(
        fc.constant({ ...head(size), ...tail }),
        fc.subarray(Object.keys({ ...head(size), ...tail }), {
          minLength: Math.max(0, size + Object.keys(tail).length - 8),
        }),
        fc.dictionary(
          fc.integer({ min: 0, max: 399 }).map((n) => `k${n}`),
          value,
          { maxKeys: 12 },
        ),
      ),
    );
    const object = (matchLabels: Record<string, unknown>) => {
      const meta = kedaReleaseMeta() as unknown as Editable;
      meta.spec.kymaSelector = { matchLabels };
      return meta;
    };
    await fc.assert(
      fc.asyncProperty(update, async ([before, kept, edits]) => {
        const after: Record<string, unknown> = {};
        for (const key of kept) after[key] = before[key];
        Object.assign(after, edits);
        const introduced = Object.entries(after).flatMap(([key, v]) =>
          typeof v === "number" && before[key] !== v ? [`spec.kymaSelector.matchLabels.${key}`] : [],
        );
        const listed = deniedExactly(await releaseMetaUpdate(object(after), object(before)), introduced);
        for (const field of listed) assert.ok(introduced.includes(field), field);
      }),
      { numRuns: 40, seed: 43, endOnFailure: true },
    );
  });

  it("ratchets the counted errors of a list of scalars by value: appended items new unless an old item had the value", async () => {
    // Past both bounds in its first 1,000 items, the check counts the others one by one; the list is
    // no map list, so its items are followed by value (an item equal to an old one is an old problem).
    const withPvcs = (pvcs: unknown[]) => {
      const module = helmModule() as unknown as Editable;
      module.spec.helm.migration = { pvcs };
      return module;
    };
    const old = Array(1_200).fill(1);
    const response = await moduleUpdate(withPvcs([...old, 2, 1, 3]), withPvcs(old));
    assert.equal(response.allowed, false);
    const causes = response.status?.details?.causes ?? [];
    assert.deepEqual(
      causes.map((cause) => cause.field),
      ["spec.helm.migration.pvcs[1200]", "spec.helm.migration.pvcs[1202]"],
    );
  });

  it("admits an update that keeps 25,000 bad links and changes another field, warning of them boundedly", async () => {
    const links = template(ftp, 25_000);
    const before = structuredClone(links);
    before.spec.channel = "fast";
    const response = await templateUpdate(links, before);
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    const warnings = response.warnings ?? [];
    assert.ok(warnings.length <= limits.listErrors + 10, `${warnings.length} warnings`);
    assert.ok(
      warnings.some((w) => /^already invalid before this update: spec\.resources\[0\]\.link/.test(w)),
    );
  });
});
