import { celString } from "../../cel/policy-cel.js";
import { semverPattern } from "../../validation/semver.js";

/**
 * CEL for the native policies of the channel and version rules: semantic versions compared as the
 * webhook compares them (src/validation/semver.ts). Numbers are compared as digit strings (shorter is
 * smaller; the pattern allows no leading zeros), so numbers beyond int64, which Kyma's pattern allows,
 * compare right as well.
 */
export const isSemver = (version: string) => `${version}.matches(${celString(semverPattern.source)})`;

/** major, minor and patch of a version the pattern matches, as digit strings. */
const core = (version: string) => `${version}.split('+')[0].split('-')[0].split('.')`;

const numberLess = (a: string, b: string) =>
  `(${a}.size() < ${b}.size() || (${a}.size() == ${b}.size() && ${a} < ${b}))`;

/** Whether `a`'s major.minor.patch is lower than `b`'s. */
export function coreLess(a: string, b: string): string {
  const [x, y] = [core(a), core(b)];
  const part = (list: string, i: number) => `${list}[${i}]`;
  return `(${numberLess(part(x, 0), part(y, 0))} || (${part(x, 0)} == ${part(y, 0)} && (${numberLess(part(x, 1), part(y, 1))} || (${part(x, 1)} == ${part(y, 1)} && ${numberLess(part(x, 2), part(y, 2))}))))`;
}

/** Whether two versions have the same major.minor.patch. */
export const coreEqual = (a: string, b: string) => `${core(a)} == ${core(b)}`;

/** The old object's entry of the channel `item` names (a map list: at most one). */
export const oldChannel = (item: string) => `oldObject.spec.channels.filter(o, o.channel == ${item}.channel)`;
