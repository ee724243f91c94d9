import type { GoOracle } from "../go-oracle.js";
import type { Random } from "./random.js";
import { type TemplateInput, type TemplateRun, templateDifferential } from "./template.js";

/**
 * Go's fmt as templates reach it: `{{printf "<format>" args...}}` with generated formats (every flag,
 * widths and precisions as numbers, `*` and `[n]*`, explicit argument indexes good and bad, every verb
 * fmt knows and some it does not, `%` at the end) and arguments of every type the operator's data and
 * template constants make (ints, uint8 from `index`, floats of every magnitude, complex constants,
 * strings with escapes and non-ASCII, bools, nil, maps, lists, nil interfaces inside them), run
 * through Go's text/template (test/oracles/template.go) and src/go/template.
 */
export const fmtData = {
  i: 51,
  n: -7,
  zero: 0,
  big: 123456789012,
  f: 2.5,
  small: 1e-7,
  huge: 1.5e300,
  third: 0.3333333333333333,
  whole: 3.0000000000000004,
  s: "héllo wörld",
  esc: 'tab\there"`\u0001\u00ff',
  astral: "𝄞x",
  m: { a: 1, b: "x", c: null, d: [1, 2.5], e: { k: true } },
  l: [1, "a", null, true, 0.1],
  empty: [],
  nothing: null,
  yes: true,
};

const flags = ["#", "0", "+", "-", " "];
const verbs = [..."vvvvssddqxXtTcUbeEfFgGoO", "p", "w", "z", "!", "é", "%"];
const constants = [
  "51",
  "-7",
  "0",
  "1000000",
  "3.5",
  "-0.0",
  "1e21",
  "1e-7",
  "0.5",
  "2.5",
  "1.0",
  "0x1p-3",
  "'a'",
  "'\\n'",
  "'\\u00e9'",
  '"héllo"',
  '"a\\tb"',
  '"\\x00z"',
  '"`q`"',
  '""',
  "`raw`",
  "true",
  "false",
  "nil",
  "1i",
  "2.5i",
  '(index "hello" 1)',
  "(index .l 1)",
  ".m.a",
  ".m.d",
  '(len "abc")',
];
const fields = Object.keys(fmtData).map((k) => `.${k}`);

function number(random: Random): string {
  if (random.chance(0.02)) return random.pick(["1000000", "1000001", "99999999", "999999"]);
  return String(random.int(0, random.chance(0.7) ? 12 : 40));
}

function argIndex(random: Random): string {
  return random.chance(0.85)
    ? `[${random.int(0, 5)}]`
    : random.pick(["[", "[x]", "[1", "[]", "[-1]", "[99999999999]"]);
}

function directive(random: Random): string {
  let d = "%";
  d += random.join(flags, 0, 3);
  if (random.chance(0.12)) d += argIndex(random);
  if (random.chance(0.45))
    d += random.chance(0.2) ? `${random.chance(0.3) ? argIndex(random) : ""}*` : number(random);
  if (random.chance(0.35)) {
    d += ".";
    if (random.chance(0.85))
      d += random.chance(0.2) ? `${random.chance(0.3) ? argIndex(random) : ""}*` : number(random);
  }
  if (random.chance(0.1)) d += argIndex(random);
  if (!random.chance(0.03)) d += random.pick(verbs);
  return d;
}

function argument(random: Random): string {
  return random.chance(0.5) ? random.pick(constants) : random.pick(fields);
}

/** One generated printf call, with the data above. */
export function generateFmt(random: Random): TemplateInput {
  const parts = Array.from({ length: random.int(1, 4) }, () =>
    random.chance(0.8) ? directive(random) : random.pick(["x", " ", "é", "[", "]", "%%", "-"]),
  );
  const format = JSON.stringify(parts.join(""));
  const args = Array.from({ length: random.int(0, 4) }, () => argument(random));
  return { text: `{{printf ${[format, ...args].join(" ")}}}`, data: fmtData };
}

export const fmtDifferential = (oracle: GoOracle, inputs: readonly TemplateInput[]): Promise<TemplateRun> =>
  templateDifferential(oracle, inputs);
