import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { warningText } from "../../../src/admission/warning.js";
import { validateChannelUpdate } from "../../../src/resources/modulereleasemeta/channel-rules.js";
import { resolutionWarnings } from "../../../src/resources/modulereleasemeta/resolution-warnings.js";
import { validateTemplatesExist } from "../../../src/resources/modulereleasemeta/template-rules.js";
import { Random } from "../../support/differential/random.js";
import { matchErrors } from "../../support/match-errors.js";
import { matchWarnings } from "../../support/match-warnings.js";
import { kedaReleaseMeta } from "../../support/modulereleasemetas.js";

type Channel = { channel: string; version: string };

describe("ModuleReleaseMeta: channel versions on UPDATE", () => {
  it("compares each channel with the last old entry of that channel, on lists kept, edited, reordered and with repeats", () => {
    // The rule as defined: every entry against a map of the old list. A channel that is no string at the
    // old list's end changes no lookup but leaves the index shortcut unsure (no sort of strings), so the
    // map answers every entry.
    const spec = (channels: Channel[]) => ({ ...kedaReleaseMeta().spec, channels });
    const byMap = (old: Channel[], now: Channel[]) =>
      validateChannelUpdate(spec([...old, { channel: 0 as unknown as string, version: "0.0.1" }]), spec(now));
    const random = new Random(8181);
    const names = ["regular", "fast", "rapid", "a"];
    const versions = ["1.0.0", "1.2.0", "1.2.0-rc1", "2.0.0", "0.9.0", "x"];
    let found = 0;
    for (let round = 0; round < 3000; round++) {
      const old = Array.from({ length: random.int(0, 8) }, () => ({
        channel: random.pick(names),
        version: random.pick(versions),
      }));
      let now = old.map((entry) => ({ ...entry }));
      const edit = random.int(0, 3);
      if (edit === 1) now.reverse();
      if (edit === 2) for (const entry of now) if (random.chance(0.3)) entry.version = random.pick(versions);
      if (edit === 3) {
        if (random.chance(0.5)) now.push({ channel: random.pick(names), version: random.pick(versions) });
        else now = now.filter(() => random.chance(0.8));
      }
      const verdict = validateChannelUpdate(spec(old), spec(now));
      // A list the update kept moves no channel, repeats or not.
      const kept = JSON.stringify(old) === JSON.stringify(now);
      const expected = kept ? { errors: [], warnings: [] } : byMap(old, now);
      assert.deepStrictEqual(verdict, expected, JSON.stringify({ old, now }));
      found += verdict.errors.length + verdict.warnings.length;
    }
    // Not vacuous: many findings, repeated channels among them; and kept lists the map would fault.
    const repeats = [
      { channel: "fast", version: "0.9.0" },
      { channel: "fast", version: "1.2.0" },
    ];
    assert.equal(byMap(repeats, repeats).errors.length, 1);
    assert.deepStrictEqual(validateChannelUpdate(spec(repeats), spec(repeats)), { errors: [], warnings: [] });
    assert.ok(found > 1000, `${found} findings`);
  });

  const change = (from: string, to: string) => {
    const verdict = validateChannelUpdate(
      kedaReleaseMeta({ regular: from }).spec,
      kedaReleaseMeta({ regular: to }).spec,
    );
    return { ...verdict, warnings: verdict.warnings.map(warningText) };
  };

  it("allows the same or a higher major.minor.patch, new channels and removed ones", () => {
    for (const [from, to] of [
      ["1.2.0", "1.2.0"],
      ["1.2.0", "1.2.1"],
      ["1.9.0", "1.10.0"],
      ["1.2.0-rc1", "1.3.0"],
      ["1.2.0", ""],
    ]) {
      assert.deepEqual(change(from ?? "", to ?? ""), { errors: [], warnings: [] }, `${from} -> ${to}`);
    }
    const added = validateChannelUpdate(kedaReleaseMeta({ regular: "1.2.0" }).spec, kedaReleaseMeta().spec);
    assert.deepEqual(added, { errors: [], warnings: [] });
    const removed = validateChannelUpdate(kedaReleaseMeta().spec, kedaReleaseMeta({ regular: "1.2.0" }).spec);
    assert.deepEqual(removed, { errors: [], warnings: [] });
  });

  it("denies a lower major.minor.patch, pre-releases stripped as lifecycle-manager strips them", () => {
    for (const [from, to] of [
      ["1.2.1", "1.2.0"],
      ["1.10.0", "1.9.9"],
      ["2.0.0-rc1", "1.9.9"],
      ["1.2.1", "1.2.0-rc9"],
    ]) {
      const { errors } = change(from ?? "", to ?? "");
      matchErrors(errors, [
        {
          type: "invalid",
          field: "spec.channels[0].version",
          rule: "modulereleasemeta.channel-downgrade",
          value: to,
          detail: `may not decrease (channel "regular" was "${from}"): lifecycle-manager does not downgrade installed modules`,
        },
      ]);
    }
  });

  it("warns (never denies) of a pre-release change within one major.minor.patch, either way", () => {
    for (const [from, to] of [
      ["1.2.0", "1.2.0-rc1"],
      ["1.2.0-rc2", "1.2.0-rc1"],
      ["1.2.0-rc1", "1.2.0"],
    ]) {
      assert.deepEqual(change(from ?? "", to ?? ""), {
        errors: [],
        warnings: [
          `spec.channels[0].version: ${from} -> ${to}: lifecycle-manager ignores pre-releases, so clusters take it either way`,
        ],
      });
    }
  });
});

describe("ModuleReleaseMeta: each assigned version has its ModuleTemplate", () => {
  const existing = new Set(["kcp-system/keda-1.2.0"]);
  const exists = (namespace: string, name: string) => existing.has(`${namespace}/${name}`);

  it("names each channel (and a mandatory version) without a <moduleName>-<version> template", () => {
    const errors = validateTemplatesExist(kedaReleaseMeta().spec, "kcp-system", exists);
    const notFound = (field: string, value: string) =>
      ({
        type: "notFound",
        field,
        rule: "modulereleasemeta.template-exists",
        value,
        detail:
          "no such ModuleTemplate (<moduleName>-<version>): lifecycle-manager cannot install this version",
      }) as const;
    matchErrors(errors, [notFound("spec.channels[1].version", "kcp-system/keda-1.3.0")]);
    const mandatory = { moduleName: "keda", mandatory: { version: "2.0.0" } };
    matchErrors(validateTemplatesExist(mandatory, "kcp-system", exists), [
      notFound("spec.mandatory.version", "kcp-system/keda-2.0.0"),
    ]);
  });

  it("looks in the release meta's own namespace, and skips empty versions", () => {
    assert.equal(
      validateTemplatesExist(kedaReleaseMeta({ regular: "1.2.0" }).spec, "other", exists).length,
      1,
    );
    assert.deepEqual(
      validateTemplatesExist(kedaReleaseMeta({ regular: "" }).spec, "kcp-system", () => false),
      [],
    );
  });
});

describe("ModuleReleaseMeta: template names lifecycle-manager looks up", () => {
  it("names the template after metadata.name (the name the module is found by), not spec.moduleName", () => {
    const spec = kedaReleaseMeta({ regular: "1.2.0" }).spec;
    const asked: string[] = [];
    validateTemplatesExist(spec, "kcp-system", (_, name) => asked.push(name) > 0, "keda-by-name");
    assert.deepEqual(asked, ["keda-by-name-1.2.0"]);
  });

  it("warns when metadata.name is so long that no template <metadata.name>-<version> can be named", () => {
    const meta = kedaReleaseMeta({ regular: "1.2.0" });
    const long = "k".repeat(250);
    // (A warning is cut to fit a response header: the start says it.)
    matchWarnings(resolutionWarnings(meta.spec, long), [
      {
        field: "spec.channels[0].version",
        message: /^spec\.channels\[0\]\.version: no ModuleTemplate can be named "k+/,
      },
    ]);
    assert.deepEqual(resolutionWarnings(meta.spec, "keda").map(warningText), []);
  });
});
