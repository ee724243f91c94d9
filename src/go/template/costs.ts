/**
 * What each step of parsing and executing a template charges the review's work budget, in units the
 * budget reckons at about 6 ns each (12 million units are about 70 ms; `limits.workUnits`). Each is
 * set from `bench/go-template-cost.ts`, which runs the shapes that do the most work per unit of each
 * kind (a range of a million empty iterations, a million characters escaped that all need escaping,
 * a template calling itself 100,000 deep, ...) and divides their CPU time by what they were charged,
 * against the same measure of an edit distance's cell, the unit the budget was calibrated by.
 * Characters built or copied cost a unit each; the rest is below.
 */
export const costs = {
  /** Lexing: a token (and the node the parser makes of it), and each character scanned. */
  token: 140,
  scannedChar: 2,
  /** A number constant read (strconv's parses, into every kind Go keeps), besides its token. */
  number: 200,
  /** Per character of a quoted string with escapes, unquoted a character at a time. */
  unquotedChar: 20,
  /** Analysing the parsed template: a node visited, a field read found (and a unit per step of its path). */
  analysedNode: 60,
  analysedField: 30,
  /** Parenthesized pipelines and control structures: each level of nesting (its frames, its nodes). */
  nesting: 200,
  /** Listing a map's keys (once per map): per key. */
  listedKey: 6,
  /** A node of a list walked: text, an action, a control structure, a template call. */
  node: 14,
  /** A command of a pipeline, an argument evaluated, a field looked up. */
  command: 12,
  argument: 6,
  field: 20,
  /** A function called (its arguments checked against its signature). */
  call: 42,
  /** A template called (its frames, its variables, kept until it returns), besides its node. */
  templateCall: 50,
  /**
   * Per character of a printf format (each directive is parsed: flags, width, precision, verb). 16
   * until session 18, when a format of 200 directives measured 1.5 times the reckoning.
   */
  formatChar: 24,
  /** One iteration of a range (its variables set, its body's frame pushed). */
  iteration: 28,
  /** Each variable passed over when one is looked up (Go looks them up from the innermost out). */
  variable: 1,
  /** Per key and comparison of sorting a map's keys, once per map (n log n of them). */
  sortedKey: 20,
  /** Per entry of a map or list printed (besides the characters printed). */
  printedEntry: 80,
  /**
   * A float or complex number printed (its shortest digits worked out). 40 until session 18, when
   * `{{print 1.5 2.5e300 1e2i -0.0}}` measured 2.8 times the budget's reckoning.
   */
  printedNumber: 150,
  /** A break or continue: the frames of the range's body left (2 times the reckoning without it). */
  leftIteration: 50,
  /** Per decimal digit of a float's exact expansion, worked out with BigInts for an explicit precision. */
  expansionDigit: 8,
  /** Per character %q quotes (a code point at a time), paid before. */
  quotedChar: 30,
  /** Per character html, js or urlquery reads (besides the characters it builds). */
  escapedChar: 12,
  /** Per character js reads when some are control characters or non-ASCII (each is looked at alone). */
  unusualChar: 60,
} as const;
