import type { Problem } from "./admit.js";

/** The API server's bounds on one response's warnings (apiserver's endpoints/filters/warning.go). */
const totalRunes = 4 * 1024;
const itemRunes = 256;

const runes = (text: string) => [...text].length;
const cut = (problem: Problem): Problem => {
  const chars = [...problem.message];
  return chars.length > itemRunes ? { ...problem, message: chars.slice(0, itemRunes).join("") } : problem;
};

/**
 * The warnings a request's answer carries, as the API server's warning recorder keeps them, in the
 * order they were added (decoding, the mutating webhook, the strategy, the validating webhook): each
 * text once; while the texts fit in 4,096 runes, whole; once one does not fit, every warning cut to
 * 256 runes and replayed, and later ones added (cut) while the total is under 4,096, the rest dropped.
 */
export function recordedWarnings(warnings: Problem[]): Problem[] {
  const seen = new Set<string>();
  const ordered: Problem[] = [];
  let kept: Problem[] = [];
  let written = 0;
  let truncating = false;
  for (const warning of warnings) {
    if (warning.message === "") continue;
    if (truncating && written >= totalRunes) break;
    if (seen.has(warning.message)) continue;
    seen.add(warning.message);
    ordered.push(warning);
    const shown = truncating ? cut(warning) : warning;
    const length = runes(shown.message);
    if (written + length <= totalRunes || truncating) {
      written += length;
      kept.push(shown);
      continue;
    }
    truncating = true;
    kept = ordered.map(cut);
    written = kept.reduce((sum, item) => sum + runes(item.message), 0);
  }
  return kept;
}
