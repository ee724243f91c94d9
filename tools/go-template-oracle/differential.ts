/**
 * Differential check of src/go-template against Go: random templates (token soup, character soup,
 * numbers) parsed by both; prints every kind of disagreement once. Needs Go, like regenerate.sh:
 * `npx tsx tools/go-template-oracle/differential.ts [count] [seed]`. Not part of CI.
 */
import { execFileSync } from "node:child_process";
import { parseTemplate } from "../../src/go-template/index.js";

const tokens = [
  "{{",
  "}}",
  "{{- ",
  " -}}",
  "{{-",
  "-}}",
  " ",
  "\n",
  ".a",
  ".b.c",
  ".",
  "$",
  "$x",
  "$x := ",
  "$x = ",
  ",",
  "|",
  "(",
  ")",
  "if ",
  "else ",
  "end",
  "range ",
  "with ",
  "define ",
  "block ",
  "template ",
  "break",
  "continue",
  '"s"',
  '"\\q"',
  "`r`",
  "'c'",
  "''",
  "1",
  "-1",
  "0x1F",
  "1.5",
  "1e3",
  "08",
  "1_0",
  "1+2i",
  "nil",
  "true",
  "len",
  "sub",
  "/* c */",
  "x",
  "é",
  "€",
  ":=",
  "=",
  "@",
  '"',
  "'",
  "`",
];
const chars = [..."{}{}{} -.\n$x:=|()'\"`\\0189aexXoObBpPi_+,/*éq€\t\r\u0001日"];
const digits = [..."0123456789.eExXoObBpPi_+-aAfF'\\u"];

const count = Number(process.argv[2] ?? 30000);
let seed = Number(process.argv[3] ?? 1);
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
const soup = (parts: string[], max: number) =>
  Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(parts)).join("");

const cases = Array.from({ length: count }, (_, i) => {
  const mode = i % 3;
  const text = mode === 0 ? soup(tokens, 12) : mode === 1 ? soup(chars, 10) : soup(digits, 8);
  return { name: String(i), text: mode === 1 && random() < 0.5 ? text : `{{${text}}}`, data: {} };
});
const go = JSON.parse(
  execFileSync("go", ["run", "."], {
    cwd: new URL(".", import.meta.url),
    input: JSON.stringify({ cases }),
    maxBuffer: 1 << 30,
  }).toString(),
).results as Record<string, { ok: boolean; error?: string; templates?: string[]; output?: string }>;

const seen = new Set<string>();
let differences = 0;
for (const c of cases) {
  const theirs = go[c.name];
  const result = parseTemplate(c.text, { functions: ["randBase62"] });
  const mine = result.ok ? `ok ${[...result.template.trees.keys()].sort()}` : result.error.message;
  const expected = theirs?.ok ? `ok ${theirs.templates ?? []}` : (theirs?.error ?? "");
  // Go < 1.20 lets an unmatched ")" reach the parser; Go 1.24, which we follow, reports it in the lexer.
  if (mine === expected || (mine.includes("unexpected right paren") && expected.includes('")"'))) continue;
  differences++;
  const kind = `${expected.replace(/"[^"]*"/g, "Q")} / ${mine.replace(/"[^"]*"/g, "Q")}`;
  if (!seen.has(kind)) console.log(JSON.stringify(c.text), "\n  go:", expected, "\n  ts:", mine);
  seen.add(kind);
}
console.log(`${differences} of ${count} differ (${execFileSync("go", ["version"]).toString().trim()})`);
