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

/** Bodies this small are parsed unchecked: they cannot come near any heap limit (at most 56 bytes per byte). */
const checkedFromBytes = 64 * 1024;

/**
 * The heap limit of this review worker (MiB), when a body's parse would take more than half of it:
 * such a parse is not begun. `JSON.parse` cannot be interrupted, and near its heap limit V8 spends
 * seconds in garbage collection that `terminate()` cannot interrupt either: a 6.9 MB body of empty
 * objects ran on for ~12 s after its deadline holding ~200 MiB, and one killed the process when its
 * worker, ended at its heap limit, ran out of heap while tearing down. Undefined (parse) outside a
 * worker with a heap limit, and for small bodies.
 */
export function heapOutgrownBy(bytes: Uint8Array): number | undefined {
  const heapMb = resourceLimits.maxOldGenerationSizeMb;
  if (heapMb === undefined || bytes.length < checkedFromBytes) return undefined;
  return parseCostBytes(bytes) > (heapMb * 1024 * 1024) / 2 ? heapMb : undefined;
}
