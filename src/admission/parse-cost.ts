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
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one preceded by an even run of backslashes (none escapes it).
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote === -1) return { structureBytes, nesting };
        let backslashes = 0;
        while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
        i = quote;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      structureBytes += c === 0x7b ? 56 : 32;
      if (++depth > nesting) nesting = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c || c === 0x3a) structureBytes += 16;
  }
  return { structureBytes, nesting };
}

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
