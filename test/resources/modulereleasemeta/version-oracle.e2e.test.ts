import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import fc from "fast-check";
import { mastermindsParseError } from "../../../src/validation/semver.js";
import { goBinary, kymaOracleTool, withoutGo } from "../../support/go-tools.js";

/** Go's uint64 bound and its neighbours, and numbers far beyond it, as a segment's digits. */
const segment = fc.oneof(
  fc.constantFrom("0", "1", "18446744073709551614", "18446744073709551615", "18446744073709551616"),
  fc.constantFrom(
    "18446744073709551617",
    "28446744073709551615",
    "99999999999999999999",
    "100000000000000000000",
  ),
  fc.nat().map(String),
  fc.bigInt({ min: 2n ** 63n, max: 2n ** 65n }).map(String),
);
/** Versions the CRD's patterns admit: a pre-release identifier, build metadata, or neither. */
const version = fc
  .tuple(
    segment,
    segment,
    segment,
    fc.constantFrom("", "-alpha", "-rc.1", "-beta.18446744073709551616"),
    fc.constantFrom("", "+build.7"),
  )
  .map(([major, minor, patch, pre, build]) => `${major}.${minor}.${patch}${pre}${build}`);

/**
 * Issue 43: a version lifecycle-manager cannot parse (github.com/Masterminds/semver/v3 v3.5.0, its
 * go.mod's, built by test/kyma-oracle) is refused with that library's message, and every other is
 * not: `mastermindsParseError` against the library itself over generated versions.
 */
describe("the versions lifecycle-manager's semver library parses, against that Go library", {
  skip: withoutGo,
}, () => {
  it("2,000 generated versions around Go's uint64 bound in each segment: the same parse, the same message", () => {
    const versions = fc.sample(version, { numRuns: 2000, seed: 43 });
    const answers = JSON.parse(
      execFileSync(goBinary(kymaOracleTool, "kyma-oracle"), {
        input: JSON.stringify(versions),
        encoding: "utf8",
      }),
    ) as { ok: boolean; error?: string }[];
    const differing = versions.filter((text, i) => mastermindsParseError(text) !== answers[i]?.error);
    assert.deepEqual(differing.slice(0, 5), []);
    const refused = answers.filter((answer) => !answer.ok).length;
    assert.ok(refused > 200 && refused < versions.length - 200, `${refused} of ${versions.length} refused`);
  });
});
