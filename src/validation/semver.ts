/**
 * Semantic versions (semver.org 2.0.0) and their precedence, pre-releases included. Written here rather
 * than taken from the `semver` package because that package refuses numbers above 2^53, which Kyma's
 * version pattern allows; numbers are compared as bigints.
 */
export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** The dot-separated pre-release identifiers; empty for a release. Build metadata is dropped. */
  prerelease: string[];
}

export const semverPattern =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseSemver(text: string): SemVer | undefined {
  const match = semverPattern.exec(text);
  if (!match) return undefined;
  const [, major = "", minor = "", patch = "", prerelease] = match;
  return {
    major: BigInt(major),
    minor: BigInt(minor),
    patch: BigInt(patch),
    prerelease: prerelease === undefined ? [] : prerelease.split("."),
  };
}

/** Negative when a precedes b, positive when it follows, 0 when they have the same precedence. */
export function compareSemver(a: SemVer, b: SemVer): number {
  for (const part of ["major", "minor", "patch"] as const) {
    if (a[part] !== b[part]) return a[part] < b[part] ? -1 : 1;
  }
  // A pre-release precedes its release: 1.0.0-rc.1 < 1.0.0.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return Math.sign(b.prerelease.length - a.prerelease.length);
  }
  const shared = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < shared; i++) {
    const order = compareIdentifiers(a.prerelease[i] ?? "", b.prerelease[i] ?? "");
    if (order !== 0) return order;
  }
  // All shared identifiers equal: the longer list has the higher precedence (alpha < alpha.1).
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

const numeric = /^\d+$/;

/** Numeric identifiers compare as numbers and precede alphanumeric ones, which compare in ASCII order. */
function compareIdentifiers(a: string, b: string): number {
  const aNumeric = numeric.test(a);
  const bNumeric = numeric.test(b);
  if (aNumeric && bNumeric) return BigInt(a) === BigInt(b) ? 0 : BigInt(a) < BigInt(b) ? -1 : 1;
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Go's math.MaxUint64: the largest segment Masterminds/semver's strconv.ParseUint reads. */
const maxUint64 = 2n ** 64n - 1n;

/**
 * What github.com/Masterminds/semver/v3's NewVersion (lifecycle-manager's parse of a module version)
 * says of a semantic version: undefined when it parses it, else its error. Of the versions `parseSemver`
 * reads, it refuses those with a major, minor or patch above Go's uint64 (test/kyma-oracle proves it).
 */
export function mastermindsParseError(text: string): string | undefined {
  const version = parseSemver(text);
  if (!version) return undefined;
  for (const part of ["major", "minor", "patch"] as const) {
    if (version[part] > maxUint64)
      return `error parsing version segment: strconv.ParseUint: parsing ${JSON.stringify(String(version[part]))}: value out of range`;
  }
  return undefined;
}
