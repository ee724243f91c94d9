import { RE2JS } from "@bufbuild/re2";
import { limits } from "../base/limits.js";
import type { WorkBudget } from "../budget/work-budget.js";
import { LruCache } from "../memo/lru-cache.js";
import { programSizeBound } from "./program-size.js";

/**
 * User-supplied regular expressions, compiled with RE2 semantics as the operator's Go regexp does:
 * `(?i)` works, look-arounds and backreferences do not compile, and matching is linear in the input.
 *
 * Linear is not bounded: matching costs about the input length times the program size (RE2's
 * instructions; `.{1000}` is 1,002 of them), and compiling costs the program size in time and memory
 * (`.{1000}` repeated 140 times in one 980-character pattern compiles to 140,002 instructions and
 * about 25 MB). So, as RE2's own `max_mem`, patterns are bounded by program size, and matches by a
 * budget of instructions × characters.
 */
/** Bytes of compiled patterns kept in the cache (an instruction costs about 200 bytes compiled). */
export const re2CacheLimitBytes = 16 * 1024 * 1024;

const bytesPerInstruction = 512;

/** A compiled pattern with its program size, or why it cannot be used (`overLimit`: it compiles, but too large). */
type Entry = { regex: RE2JS; instructions: number } | { error: string; overLimit?: true };

const cache = new LruCache<Entry>({ bytes: re2CacheLimitBytes, entryBytes: re2CacheLimitBytes });

/** A compiled pattern (`test` finds a match anywhere, as Go's regexp.MatchString), or why it cannot be used. */
export function compileRe2(pattern: string): RE2JS | { error: string } {
  const entry = compileCounted(pattern);
  return "error" in entry ? entry : entry.regex;
}

/** The compiled pattern and its program size, from the cache when it was compiled recently. */
export function compileCounted(pattern: string): Entry {
  // The pattern itself is charged as the key.
  return cache.getOrSet(
    pattern,
    () => compileUncached(pattern),
    (entry) => ("error" in entry ? entry.error.length * 2 : entry.instructions * bytesPerInstruction),
  );
}

/**
 * The patterns of one schema, compiled in order until together they reach
 * `limits.re2.schemaInstructions`; the rest are refused without compiling. The same list gives the same
 * answer, so the schema rules and the value rules agree on which patterns are usable.
 */
export function compileAll(patterns: readonly (string | undefined)[]): (Entry | undefined)[] {
  let left = limits.re2.schemaInstructions;
  return patterns.map((pattern) => {
    if (pattern === undefined) return undefined;
    if (left <= 0) {
      return {
        overLimit: true,
        error: `the schema's patterns together compile to more than the ${limits.re2.schemaInstructions} RE2 instructions this webhook allows`,
      };
    }
    const entry = compileCounted(pattern);
    if (!("error" in entry)) left -= entry.instructions;
    return entry;
  });
}

/** What the cache holds, for tests of its bound. */
export function re2CacheBytes(): number {
  return cache.bytes;
}

function compileUncached(pattern: string): Entry {
  const tooLarge = (size: string) => ({
    overLimit: true as const,
    error: `the pattern compiles to ${size} RE2 instructions, more than the ${limits.re2.programInstructions} this webhook allows (a bound on matching time and memory)`,
  });
  // Refused before compiling when even the compiled size could not be within the bound: the estimate
  // is within a few times the real size (at most 11 times in a fuzz test against RE2JS).
  const bound = programSizeBound(pattern);
  if (bound > 20 * limits.re2.programInstructions) return tooLarge(`about ${bound}`);
  try {
    const regex = new RE2JS(pattern);
    const instructions = regex.re2().prog.numInst();
    if (instructions > limits.re2.programInstructions) return tooLarge(String(instructions));
    return { regex, instructions };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Work units per RE2 instruction × character matched (8 million took about 100 ms, 12 ns each). */
export const workUnitsPerStep = 2;

/**
 * A budget of matching work (instructions × characters) shared by the matches of one review, so that
 * a review's regex work stays bounded however many values and patterns it holds: about 100 ms here.
 * Given the review's WorkBudget, matching is paid from it as well (`workUnitsPerStep` units per
 * instruction × character, about 12 ns measured), so that regexes and every other rule share one
 * allowance; a value the budgets cannot pay for is refused, as before, without failing the review.
 */
export class MatchBudget {
  constructor(
    private left = 8_000_000,
    private readonly work?: WorkBudget,
  ) {}

  /** Whether `pattern` matches somewhere in `input`, or why the match was not tried. */
  test(entry: { regex: RE2JS; instructions: number }, input: string): boolean | { refused: string } {
    if (input.length > limits.re2.inputChars) {
      return {
        refused: `is not matched against the regular expression: longer than the ${limits.re2.inputChars} characters this webhook matches`,
      };
    }
    const cost = (input.length + 1) * entry.instructions;
    if (cost > this.left || (this.work && !this.work.tryCharge(cost * workUnitsPerStep))) {
      return {
        refused: `is not matched against the regular expression: too long for this pattern within the webhook's bound on matching work per object`,
      };
    }
    this.left -= cost;
    return memoizedTest(entry.regex, input);
  }
}

/**
 * Results of recent matches, by pattern and input. Whether a pattern matches a text depends on the two
 * texts alone (every pattern here is compiled from its text without flags), so they are the whole key;
 * a budget is still charged for a remembered match, so the verdicts stay what matching would give.
 * Real traffic repeats matches: spec.config is immutable, so every UPDATE of a Module (status,
 * finalizer and label changes included) matches the same values, once for the new object and once
 * for the old one (ratcheting); GitOps tools re-apply unchanged objects. Bounded: keys of at most
 * `matchMemoMaxKey` characters, at most `matchMemoLimit` of them (each charged its key and a Map entry).
 */
export const matchMemoLimit = 2048;
const matches = new LruCache<boolean>({ bytes: matchMemoLimit * 1024, entries: matchMemoLimit });
const matchMemoMaxKey = 512;

function memoizedTest(regex: RE2JS, input: string): boolean {
  const pattern = regex.pattern();
  if (pattern.length + input.length > matchMemoMaxKey) return regex.test(input);
  // The pattern's length first: no other pair of texts makes the same key.
  return matches.getOrSet(
    `${pattern.length}:${pattern}${input}`,
    () => regex.test(input),
    () => 64,
  );
}

/** How many match results are remembered, for the test of the bound. */
export function matchMemoSize(): number {
  return matches.size;
}
