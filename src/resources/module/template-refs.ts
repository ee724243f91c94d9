const marker = ".config.";
const identifierStart = /[A-Za-z_]/;
const identifierPart = /[A-Za-z0-9_]/;

/**
 * The X of every `.config.X` inside a template action (`{{ ... .config.X ... }}`), as the pattern
 * /\{\{[^}]*?\.config\.([A-Za-z_][A-Za-z0-9_]*)/g finds them, in time linear in the text: the pattern
 * itself backtracks quadratically on a long run of `{` (100 KB took 4.6 s). Each position is visited a
 * bounded number of times: the pointers to the next `}` and the next `.config.X` only move forward.
 */
export function templateConfigRefs(text: string): string[] {
  const found: string[] = [];
  const occurrences = markerPositions(text);
  let next = 0; // index into occurrences
  let close = -1; // position of the first "}" at or after the current action's start, or text.length
  let i = text.indexOf("{{");
  while (i !== -1) {
    const start = i + 2;
    if (close < start) close = closingBrace(text, start);
    while (next < occurrences.length && (occurrences[next] ?? 0) < start) next++;
    const at = occurrences[next];
    if (at !== undefined && at < close) {
      let end = at + marker.length + 1;
      while (end < text.length && identifierPart.test(text[end] ?? "")) end++;
      found.push(text.slice(at + marker.length, end));
      i = text.indexOf("{{", end);
    } else {
      i = text.indexOf("{{", i + 1);
    }
  }
  return found;
}

/** Where `.config.` is followed by the start of an identifier. */
function markerPositions(text: string): number[] {
  const positions: number[] = [];
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) {
    if (identifierStart.test(text[at + marker.length] ?? "")) positions.push(at);
  }
  return positions;
}

function closingBrace(text: string, from: number): number {
  const at = text.indexOf("}", from);
  return at === -1 ? text.length : at;
}
