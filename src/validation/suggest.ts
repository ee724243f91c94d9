import type { WorkBudget } from "../budget/work-budget.js";

/**
 * Longest key or candidate worth a suggestion: the edit distance costs the product of both lengths, and
 * a typo in a 64-character key is not what a suggestion helps with.
 */
export const maxSuggestChars = 64;

/** What a search for a suggestion found; `stopped` when the review's work budget could not pay for it. */
export type Suggestion = { match?: string; stopped?: true };

/**
 * The candidate closest to `input` by edit distance, if it is close enough to be a likely typo. A hint
 * is optional work: it is paid for from `budget` (each candidate looked at, each distance computed), and
 * the search stops, without a hint, when the budget cannot pay (2,000 aliases × 50 keys cost 3.6 s).
 */
export function closestMatch(input: string, candidates: readonly string[], budget: WorkBudget): Suggestion {
  if (input.length > maxSuggestChars) return {};
  if (!budget.tryCharge(candidates.length)) return { stopped: true };
  const lowerInput = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: no need to compute it when that is too far.
    if (candidate.length > maxSuggestChars || Math.abs(candidate.length - input.length) >= bestDistance)
      continue;
    if (!budget.tryCharge(editDistanceCost(input, candidate))) return { stopped: true };
    const distance = editDistance(lowerInput, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? {} : { match: best };
}

/** Units of work one edit distance costs: a step per cell of its table (about 10 ns each). */
export function editDistanceCost(a: string, b: string): number {
  return (a.length + 1) * (b.length + 1);
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
