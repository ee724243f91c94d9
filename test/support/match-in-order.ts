import { AssertionError } from "node:assert";

/** How a list matcher reads one kind of item: `matchErrors` and `matchWarnings` differ only in this. */
export interface ItemMatcher<Got, Want> {
  /** The plural noun in the failure's first line ("field errors", "warnings"). */
  items: string;
  operator: string;
  matches(got: Got, want: Want): boolean;
  gotLine(got: Got): string;
  expectedLine(want: Want): string;
}

/**
 * Asserts that `got` are exactly the `expected` items, in order. On a difference the failure lists
 * both, one item a line, with the first that differs, after `context` (the case, in a loop) when given.
 */
export function matchInOrder<Got, Want>(
  matcher: ItemMatcher<Got, Want>,
  got: readonly Got[],
  expected: readonly Want[],
  context?: string,
): void {
  const first = firstDifference(matcher, got, expected);
  if (first === undefined) return;
  throw new AssertionError({
    message: [
      `${context === undefined ? "" : `${context}: `}${matcher.items} differ at #${first}`,
      "expected:",
      ...(expected.length > 0 ? expected.map((want) => `  ${matcher.expectedLine(want)}`) : ["  (none)"]),
      "got:",
      ...(got.length > 0 ? got.map((item) => `  ${matcher.gotLine(item)}`) : ["  (none)"]),
    ].join("\n"),
    actual: got.map((item) => matcher.gotLine(item)),
    expected: expected.map((want) => matcher.expectedLine(want)),
    operator: matcher.operator,
  });
}

function firstDifference<Got, Want>(
  matcher: ItemMatcher<Got, Want>,
  got: readonly Got[],
  expected: readonly Want[],
): number | undefined {
  for (let i = 0; i < Math.max(got.length, expected.length); i++) {
    if (i >= got.length || i >= expected.length) return i;
    if (!matcher.matches(got[i] as Got, expected[i] as Want)) return i;
  }
  return undefined;
}

export const textMatches = (text: string, want: string | RegExp) =>
  typeof want === "string" ? text === want : want.test(text);

export const ruleText = (rule: string | undefined) => (rule === undefined ? "(no rule)" : `(rule ${rule})`);
