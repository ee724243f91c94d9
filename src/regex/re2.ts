import { RE2JS } from "@bufbuild/re2";

/**
 * User-supplied regular expressions, compiled with RE2 semantics as the operator's Go regexp does:
 * `(?i)` works, look-arounds and backreferences do not compile, and matching is linear in the input,
 * so a hostile pattern cannot stall the server. Compiled patterns are cached: many Modules share one
 * config schema.
 */
const cache = new Map<string, RE2JS | { error: string }>();
const cacheLimit = 1024;

/** A compiled pattern (`test` finds a match anywhere, as Go's regexp.MatchString), or why it did not compile. */
export function compileRe2(pattern: string): RE2JS | { error: string } {
  let entry = cache.get(pattern);
  if (!entry) {
    try {
      entry = new RE2JS(pattern);
    } catch (error) {
      entry = { error: error instanceof Error ? error.message : String(error) };
    }
    if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, entry);
  }
  return entry;
}
