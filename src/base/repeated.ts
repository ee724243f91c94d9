/**
 * The values that occur more than once in `values` (by `===`), or undefined when some value is not a
 * string (then the caller tracks every value itself, as before). Found by sorting a copy and comparing
 * neighbours: a Set of 100,000 fresh strings cost 25-50 ms in the review worker (its tables grow by
 * rehashing, and each growth's allocation pays the young generation's copying of the review's parsed
 * objects), the sort 8-12 ms; the Set is then built of the repeated values alone (usually none).
 * Strings sort by UTF-16 code units, so equal strings are neighbours.
 */
export function repeatedStrings(values: readonly unknown[]): ReadonlySet<string> | undefined {
  const repeated = new Set<string>();
  if (values.length < 2) return repeated;
  for (const value of values) if (typeof value !== "string") return undefined;
  const sorted = (values as string[]).slice().sort();
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1]) repeated.add(sorted[i] as string);
  }
  return repeated;
}
