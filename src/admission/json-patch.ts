import { writeJson } from "../base/exact-json.js";
/** An RFC 6902 operation; only the three a diff needs. */
export type PatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

const escapeToken = (token: string) =>
  token.includes("~") || token.includes("/") ? token.replaceAll("~", "~0").replaceAll("/", "~1") : token;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The JSON Patch that turns `before` into `after`. New keys become `add` (what the API server and
 * reviewers expect from a defaulter), changed values `replace`, vanished keys `remove`. Arrays that
 * differ are replaced whole: defaulters here never edit list items in place.
 */
export function diffToPatch(before: unknown, after: unknown, path = ""): PatchOperation[] {
  // Defaulters copy only what they change: an untouched subtree is the same object, no need to compare.
  if (before === after) return [];
  if (isPlainObject(before) && isPlainObject(after)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) ops.push({ op: "remove", path: `${path}/${escapeToken(key)}` });
    }
    for (const [key, value] of Object.entries(after)) {
      const had = Object.hasOwn(before, key);
      // The path is rendered only where something changed.
      if (had && before[key] === value) continue;
      const childPath = `${path}/${escapeToken(key)}`;
      if (!had) ops.push({ op: "add", path: childPath, value });
      else ops.push(...diffToPatch(before[key], value, childPath));
    }
    return ops;
  }
  return writeJson(before) === writeJson(after) ? [] : [{ op: "replace", path, value: after }];
}
