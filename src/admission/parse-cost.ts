import { resourceLimits } from "node:worker_threads";

/**
 * What `JSON.parse` of a body may allocate, estimated from its bytes before it is parsed: each object
 * about 56 bytes, each list 32, each member or item 16 more, besides the text itself (measured: an
 * empty object costs 56 bytes for its 3 characters of JSON). Strings are skipped, as their commas and
 * braces allocate nothing: each to its closing quote by the runtime's native search (most of a body's
 * bytes are in strings); the bytes between strings are looked at one by one.
 */
export function parseCostBytes(bytes: Uint8Array): number {
  let cost = bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x22) {
      // To the closing quote: one preceded by an even run of backslashes (none escapes it).
      for (;;) {
        const quote = bytes.indexOf(0x22, i + 1);
        if (quote === -1) return cost;
        let backslashes = 0;
        while (bytes[quote - 1 - backslashes] === 0x5c) backslashes++;
        i = quote;
        if (backslashes % 2 === 0) break;
      }
    } else if (byte === 0x7b) cost += 56;
    else if (byte === 0x5b) cost += 32;
    else if (byte === 0x2c || byte === 0x3a) cost += 16;
  }
  return cost;
}

/** What one pass over a body's JSON text finds before it is parsed: its parse's cost, and its nesting. */
export interface TextShape {
  /**
   * What `JSON.parse` allocates beyond the text's bytes (`parseCostBytes` less the body's length):
   * 56 bytes per object, 32 per list, 16 per member or item, none for what is inside strings.
   */
  structureBytes: number;
  /** How deep it nests: its most brackets open at once, those inside strings not counted (`jsonNesting`). */
  nesting: number;
  /**
   * Where `request.object` is, when it is a JSON object: from its `{` to its `}` (the last such member,
   * as JSON.parse keeps the last of repeated keys). Undefined for a review without one (a DELETE's null).
   */
  object?: { start: number; end: number };
}

/**
 * `parseCostBytes` and `jsonNesting` in one pass over the decoded text, each string skipped by the
 * string's native search (several times faster than a Uint8Array's `indexOf`). The same counts as the
 * bytes give: UTF-8 never encodes a character outside ASCII with an ASCII byte, and the decoder never
 * swallows an ASCII byte into the U+FFFD it makes of an invalid sequence, so the text's ASCII
 * characters are the body's ASCII bytes, in order. On a 5.72 MiB review (Module spec.helm.values x
 * 100,000), the two scans and the search for long digit runs made twice cost 20 ms (in process, median
 * of 9); this pass and one search, 8.
 */
export function textShape(text: string): TextShape {
  let structureBytes = 0;
  let depth = 0;
  let nesting = 0;
  // request.object's place: the member key just read at depth 1 or 2 ("request", then "object"), the
  // request's object open, and the object's opening bracket. Keys are compared in place, never sliced.
  let pending: "request" | "object" | undefined;
  let inRequest = false;
  let objectStart = -1;
  let object: TextShape["object"];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      // To the closing quote: one preceded by an even run of backslashes (none escapes it).
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote === -1) return { structureBytes, nesting, object };
        let backslashes = 0;
        while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
        i = quote;
        if (backslashes % 2 === 0) break;
      }
      if (depth === 1 || depth === 2) pending = memberKey(text, start, i, depth, inRequest);
    } else if (c === 0x7b || c === 0x5b) {
      structureBytes += c === 0x7b ? 56 : 32;
      if (++depth > nesting) nesting = depth;
      if (c === 0x7b && pending === "request" && depth === 2) inRequest = true;
      else if (c === 0x7b && pending === "object" && depth === 3) objectStart = i;
      pending = undefined;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 3 && objectStart !== -1) {
        object = { start: objectStart, end: i };
        objectStart = -1;
      } else if (depth === 2) inRequest = false;
      depth--;
    } else if (c === 0x2c || c === 0x3a) structureBytes += 16;
  }
  return { structureBytes, nesting, object };
}

/**
 * Which of the keys `textShape` looks for the string from `start` to `end` (its quotes) is: "request"
 * as a member of the review, "object" as a member of its request, when a colon follows.
 */
function memberKey(
  text: string,
  start: number,
  end: number,
  depth: number,
  inRequest: boolean,
): "request" | "object" | undefined {
  const key = depth === 1 ? "request" : inRequest ? "object" : undefined;
  return key !== undefined && isMemberKey(text, start, end, key, text.length) ? key : undefined;
}

const isBlank = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * At least how many bytes the object whose JSON runs from `start` (its `{`) to `end` (its `}`) took in
 * the request that created or changed it: a lower bound, so that what it says is over a limit is over
 * it however the client wrote the object. The API server writes the review's object again (Go's
 * encoding: `<` as `\u003c`, `1e20` as 21 digits) and adds `metadata.managedFields`. So: the
 * characters, less the blanks outside strings, less 5 for each escape (`\u003c` is one byte
 * unescaped), less all but one character of each number, and without `metadata.managedFields` (key and comma).
 */
export function sentBytesAtLeast(text: string, start: number, end: number): number {
  let count = end - start + 1;
  let depth = 0;
  // "metadata" read as a member of the object, then "managedFields" as one of its metadata.
  let pending: "metadata" | "managedFields" | undefined;
  let inMetadata = false;
  let managedFrom = -1;
  let keyFrom = -1;
  let nextBackslash = text.indexOf("\\", start);
  for (let i = start; i <= end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const from = i;
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote === -1 || quote > end) return count;
        let backslashes = 0;
        while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
        // Every backslash in a string begins an escape or is the second character of one (skipped).
        // The next backslash is searched for once, however many strings come before it: linear.
        while (nextBackslash !== -1 && nextBackslash < quote) {
          if (nextBackslash > i) count -= 5;
          nextBackslash = text.indexOf("\\", nextBackslash + 2);
        }
        i = quote;
        if (backslashes % 2 === 0) break;
      }
      const key = depth === 1 ? "metadata" : depth === 2 && inMetadata ? "managedFields" : undefined;
      pending = key !== undefined && isMemberKey(text, from, i, key, end) ? key : undefined;
      if (pending === "managedFields") keyFrom = from;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (c === 0x7b && pending === "metadata" && depth === 2) inMetadata = true;
      else if (pending === "managedFields" && depth === 3) managedFrom = i;
      pending = undefined;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 3 && managedFrom !== -1) {
        // The member whole, and a comma beside it (when it is the only member there is none: less still).
        count -= i - keyFrom + 2;
        managedFrom = -1;
      } else if (depth === 2) inMetadata = false;
      depth--;
    } else if (isBlank(c)) count--;
    else if (isNumberChar(c) && isNumberChar(text.charCodeAt(i - 1))) count--;
  }
  return count;
}

/** Whether the string from `from` to `to` (its quotes) is `key` followed by a colon (before `end`). */
function isMemberKey(text: string, from: number, to: number, key: string, end: number): boolean {
  if (to - from - 1 !== key.length || !text.startsWith(key, from + 1)) return false;
  let next = to + 1;
  while (next < end && isBlank(text.charCodeAt(next))) next++;
  return text.charCodeAt(next) === 0x3a;
}

/** A character of a JSON number outside strings: digits, sign, point, exponent. */
const isNumberChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/** Bodies this small are parsed unchecked: they cannot come near any heap limit (at most 56 bytes per byte). */
const checkedFromBytes = 64 * 1024;

/**
 * The heap limit of this review worker (MiB), when a body's parse would take more than half of it:
 * such a parse is not begun. `JSON.parse` cannot be interrupted, and near its heap limit V8 spends
 * seconds in garbage collection that `terminate()` cannot interrupt either: a 6.9 MB body of empty
 * objects ran on for ~12 s after its deadline holding ~200 MiB, and one killed the process when its
 * worker, ended at its heap limit, ran out of heap while tearing down. Undefined (parse) outside a
 * worker with a heap limit, and for small bodies. `shape`: the body's text scanned already (the same count).
 */
export function heapOutgrownBy(bytes: Uint8Array, shape?: TextShape): number | undefined {
  const heapMb = resourceLimits.maxOldGenerationSizeMb;
  if (heapMb === undefined || bytes.length < checkedFromBytes) return undefined;
  const cost = shape ? bytes.length + shape.structureBytes : parseCostBytes(bytes);
  return cost > (heapMb * 1024 * 1024) / 2 ? heapMb : undefined;
}

/** Whether a body is long enough for its text's shape to be scanned once (`textShape`), not per check. */
export const scansShape = (bytes: Uint8Array): boolean => bytes.length >= checkedFromBytes;
