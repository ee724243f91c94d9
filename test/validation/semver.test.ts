import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compareSemver, parseSemver, type SemVer } from "../../src/validation/semver.js";

function parsed(text: string): SemVer {
  const version = parseSemver(text);
  assert.ok(version, `${text} should parse`);
  return version;
}

const compare = (a: string, b: string) => compareSemver(parsed(a), parsed(b));

/** Every adjacent pair in strictly ascending order, in both directions, and each equal to itself. */
function assertAscending(versions: string[]) {
  for (let i = 1; i < versions.length; i++) {
    const [lower = "", higher = ""] = [versions[i - 1], versions[i]];
    assert.ok(compare(lower, higher) < 0, `${lower} < ${higher}`);
    assert.ok(compare(higher, lower) > 0, `${higher} > ${lower}`);
  }
  for (const version of versions) assert.equal(compare(version, version), 0, version);
}

describe("semver precedence", () => {
  it("orders pre-releases as semver.org §11 does", () => {
    assertAscending([
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
    ]);
  });

  it("orders major, minor and patch numerically, not as text", () => {
    assertAscending(["1.9.0", "1.10.0", "1.10.1", "1.10.10", "2.0.0", "10.0.0"]);
  });

  it("orders Kyma-style pre-releases (one identifier) in ASCII order, below their release", () => {
    // ASCII: upper case precedes lower case, '-' precedes digits; rc10 precedes rc2 (not numeric).
    assertAscending([
      "1.2.0-Beta",
      "1.2.0-alpha",
      "1.2.0-rc-1",
      "1.2.0-rc1",
      "1.2.0-rc10",
      "1.2.0-rc2",
      "1.2.0",
    ]);
    assert.ok(compare("1.2.0-rc1", "1.1.9") > 0, "a pre-release of 1.2.0 still follows 1.1.9");
  });

  it("compares numbers beyond 2^53 exactly", () => {
    assertAscending([
      "9007199254740993.0.0",
      "9007199254740994.0.0-x.9007199254740993",
      "9007199254740994.0.0",
    ]);
    assert.ok(compare("1.0.0-9007199254740993", "1.0.0-9007199254740992") > 0);
  });

  it("ignores build metadata and refuses what is not a version", () => {
    assert.equal(compare("1.0.0+build.1", "1.0.0+build.2"), 0);
    for (const text of ["", "1.0", "01.0.0", "1.0.0-", "v1.0.0", "1.0.0-a..b", "1.0.0 "]) {
      assert.equal(parseSemver(text), undefined, JSON.stringify(text));
    }
  });

  it("is a total order: antisymmetric and consistent with sorting", () => {
    const identifier = fc.oneof(
      fc.stringMatching(/^[0-9]{1,3}$/),
      fc.stringMatching(/^[A-Za-z-][0-9A-Za-z-]{0,3}$/),
    );
    const version = fc
      .record({
        core: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)),
        prerelease: fc.array(identifier, { maxLength: 3 }),
      })
      .map(({ core, prerelease }) => {
        const clean = prerelease.map((id) => (/^\d+$/.test(id) ? String(Number(id)) : id));
        return `${core.join(".")}${clean.length > 0 ? `-${clean.join(".")}` : ""}`;
      });
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        assert.equal(Math.sign(compare(a, b)) + Math.sign(compare(b, a)), 0, `${a} ${b}`);
        const sorted = [a, b, c].sort(compare);
        for (let i = 1; i < sorted.length; i++) {
          assert.ok(compare(sorted[i - 1] ?? "", sorted[i] ?? "") <= 0, sorted.join(" "));
        }
        if (compare(a, b) <= 0 && compare(b, c) <= 0) assert.ok(compare(a, c) <= 0, `${a} ${b} ${c}`);
      }),
    );
  });
});
