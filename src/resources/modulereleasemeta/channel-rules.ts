import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import {
  errorRules,
  formatMessage,
  type PolicyValidation,
  warningRules,
} from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { repeatedStrings } from "../../base/repeated.js";
import { celMessage, itemRule, present, quoted } from "../../cel/policy-cel.js";
import type { ModuleReleaseMetaSpec } from "../../generated/modulereleasemeta.js";
import { sameJson } from "../../schema/correlation.js";
import { mastermindsParseError, parseSemver, type SemVer } from "../../validation/semver.js";
import { coreEqual, coreLess, isSemver, oldChannel } from "./versions-cel.js";

/** The channel rules' wording, for their checks and their policies alike. */
const downgrade = {
  decrease:
    "may not decrease (channel {channel} was {was}): lifecycle-manager does not downgrade installed modules",
} as const;
const prerelease = {
  eitherWay: "{was} -> {now}: lifecycle-manager ignores pre-releases, so clusters take it either way",
} as const;

/**
 * A channel whose version changed to one that `found(new, old)` says of (as CEL): a lower major.minor.patch,
 * or the same one. Both versions must be semantic versions, as for the webhook. `detail` is the CEL of
 * the message after the field, from the item (`item`) and its old version (`was`).
 */
function channelChange(
  found: (version: string, previous: string) => string,
  detail: (item: string, was: string) => string,
): PolicyValidation {
  return itemRule({
    list: "object.spec.channels",
    field: "spec.channels",
    ok: (item) =>
      `!(${present("oldObject.spec.channels")}) || oldObject.spec.channels.all(o, o.channel != ${item}.channel || o.version == ${item}.version || !${isSemver("o.version")} || !${isSemver(`${item}.version`)} || !(${found(`${item}.version`, "o.version")}))`,
    below: () => "'.version'",
    detail: (item) => detail(item, `${oldChannel(item)}[0].version`),
    spare: false,
  });
}

/** More channels than the policies are sure to compare with the old ones within the cost limit (64). */
const manyChannels =
  "(has(object.spec) && has(object.spec.channels) && object.spec.channels.size() > 64) || (request.operation == 'UPDATE' && has(oldObject.spec) && has(oldObject.spec.channels) && oldObject.spec.channels.size() > 64)";

/** A version with a segment of 20 digits or more: one Go's uint64 may not hold (call the webhook). */
const longSegment = (version: string) => `${version}.matches('[0-9]{20}')`;

/** Versions lifecycle-manager's semver library cannot parse. */
export const versionRules = errorRules({
  "modulereleasemeta.version": {
    summary: "a channel's or the mandatory version that lifecycle-manager's semver library cannot parse",
    realSystem:
      "its version check (Masterminds/semver NewVersion) fails on it: every Kyma with the module reports it in error",
    stricter:
      "the API server stores it (the CRD's pattern admits any digits); lifecycle-manager certainly fails on it, on every Kyma that has the module",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:197-260 (markInvalidSkewUpdate: semver.NewVersion); github.com/Masterminds/semver/v3 v3.5.0 (lifecycle-manager's go.mod)",
    native: {
      by: "webhook",
      why: "a number beyond Go's uint64 in a version: CEL's integers are int64 and the version a string",
      callWhen: `has(object.spec) && ((has(object.spec.channels) && object.spec.channels.exists(c, has(c.version) && ${longSegment("c.version")})) || (has(object.spec.mandatory) && has(object.spec.mandatory.version) && ${longSegment("object.spec.mandatory.version")}))`,
    },
  },
});

/** lifecycle-manager's error when a template's version does not parse (regular.go, markInvalidSkewUpdate). */
const skewError =
  "module template update not allowed: could not handle channel skew as descriptor from template contains invalid version";

/**
 * Channel and mandatory versions lifecycle-manager cannot parse (rule modulereleasemeta.version): a
 * major, minor or patch above Go's uint64, which the CRD's pattern admits, with its library's message.
 */
export function validateVersions(spec: ModuleReleaseMetaSpec | undefined): FieldErrorList {
  const found: [FieldPath, string][] = (spec?.channels ?? []).map((entry, i) => [
    channelsPath.index(i).child("version"),
    entry.version,
  ]);
  const mandatory = spec?.mandatory?.version;
  if (mandatory !== undefined)
    found.push([FieldPath.root("spec").child("mandatory").child("version"), mandatory]);
  const errors: FieldErrorList = [];
  for (const [path, version] of found) {
    const problem = typeof version === "string" ? mastermindsParseError(version) : undefined;
    if (problem !== undefined)
      errors.push(
        fieldError.invalid(
          path,
          version,
          `lifecycle-manager cannot parse it: ${skewError} (Masterminds/semver: ${problem}): every Kyma with the module installed reports it in error`,
        ),
      );
  }
  return byRule("modulereleasemeta.version", errors);
}

/** Channel versions on UPDATE, as lifecycle-manager compares an installed module's version. */
export const channelRules = [
  ...errorRules({
    "modulereleasemeta.channel-downgrade": {
      summary: "a channel moved to a version lower in major.minor.patch",
      realSystem: "refuses to go lower: every Kyma on the channel reports the module in error",
      upstream:
        "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:197-260 (markInvalidSkewUpdate, filterVersion)",
      transition: true,
      messages: downgrade,
      native: {
        by: "policy",
        policy: {
          validations: [
            channelChange(
              coreLess,
              (item, was) =>
                `'Invalid value: ' + ${quoted(`${item}.version`)} + ': ' + ${celMessage(downgrade.decrease, { channel: quoted(`${item}.channel`), was: quoted(was) })}`,
            ),
          ],
          largeWhen: manyChannels,
        },
      },
    },
  }),
  ...warningRules({
    "modulereleasemeta.channel-prerelease": {
      summary: "a channel moved between pre-releases of one major.minor.patch",
      realSystem: "does not order pre-releases: clusters take the change either way",
      upstream:
        "kyma-project/lifecycle-manager@c5b83f1 pkg/templatelookup/regular.go:251-260 (pre-releases stripped)",
      transition: true,
      messages: prerelease,
      native: {
        by: "policy",
        policy: {
          validations: [
            channelChange(coreEqual, (item, was) =>
              celMessage(prerelease.eitherWay, { was, now: `${item}.version` }),
            ),
          ],
          largeWhen: manyChannels,
        },
      },
    },
  }),
];

const channelsPath = FieldPath.root("spec").child("channels");

/**
 * On UPDATE, a channel's version never goes down (rule modulereleasemeta.channel-downgrade). lifecycle-
 * manager compares major.minor.patch only, pre-releases stripped, and refuses to move an installed module
 * to a lower one: every Kyma on that channel then reports the module in error. A pre-release change
 * within one major.minor.patch is not ordered by it at all, so it only warns.
 */
export function validateChannelUpdate(
  oldSpec: ModuleReleaseMetaSpec | undefined,
  spec: ModuleReleaseMetaSpec | undefined,
): { errors: FieldErrorList; warnings: FieldWarning[] } {
  // A spec the update kept moves no channel (an update of labels alone: 50,000 channels kept cost
  // about 7 ms to pair; and a channel listed twice would have read as moved from its last version).
  if (oldSpec === spec || sameJson(oldSpec, spec)) return { errors: [], warnings: [] };
  const oldChannels = oldSpec?.channels ?? [];
  // Each channel's version before: its last entry's in the old list. An entry whose old item at the same
  // index has its channel, a channel that occurs once in the old list, was that item's; only other
  // entries look it up in a map of the old list (built on first use). A Map of 50,000 fresh channel
  // names cost about 20 ms in the review worker on an UPDATE that keeps them (its growth pays the young
  // generation's copying of the parsed review); a sorted copy of the names allocates one array.
  let before: Map<unknown, string> | undefined;
  let repeated: ReadonlySet<string> | undefined | null = null;
  const previousOf = (entry: (typeof oldChannels)[number], i: number): string | undefined => {
    const old = oldChannels[i];
    if (old !== undefined && typeof entry.channel === "string" && old.channel === entry.channel) {
      if (repeated === null) repeated = repeatedStrings(oldChannels.map((item) => item.channel));
      if (repeated !== undefined && !repeated.has(entry.channel)) return old.version;
    }
    before ??= new Map(oldChannels.map((item) => [item.channel, item.version]));
    return before.get(entry.channel);
  };
  const errors: FieldErrorList = [];
  const warnings: FieldWarning[] = [];
  (spec?.channels ?? []).forEach((entry, i) => {
    const previous = previousOf(entry, i);
    if (previous === undefined || previous === entry.version) return;
    const was = parseSemver(previous);
    const now = parseSemver(entry.version);
    if (!was || !now) return;
    const order = compareCore(now, was);
    const path = channelsPath.index(i).child("version");
    if (order < 0) {
      errors.push(
        fieldError.invalid(
          path,
          entry.version,
          formatMessage(downgrade.decrease, {
            channel: JSON.stringify(entry.channel),
            was: JSON.stringify(previous),
          }),
        ),
      );
    } else if (order === 0) {
      warnings.push(
        warningAt(
          path,
          `${path}: ${formatMessage(prerelease.eitherWay, { was: previous, now: entry.version })}`,
        ),
      );
    }
  });
  return { errors: byRule("modulereleasemeta.channel-downgrade", errors), warnings };
}

function compareCore(a: SemVer, b: SemVer): number {
  for (const part of ["major", "minor", "patch"] as const) {
    if (a[part] !== b[part]) return a[part] < b[part] ? -1 : 1;
  }
  return 0;
}
