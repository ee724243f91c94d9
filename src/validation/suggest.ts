/**
 * Longest key or candidate worth a suggestion: the edit distance costs the product of both lengths, and
 * a typo in a 64-character key is not what a suggestion helps with.
 */
export const maxSuggestChars = 64;

/** The candidate closest to `input` by edit distance, if it is close enough to be a likely typo. */
export function closestMatch(input: string, candidates: string[]): string | undefined {
  if (input.length > maxSuggestChars) return undefined;
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: no need to compute it when that is too far.
    if (candidate.length > maxSuggestChars || Math.abs(candidate.length - input.length) >= bestDistance)
      continue;
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
