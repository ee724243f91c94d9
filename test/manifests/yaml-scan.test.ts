import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { mayReadDifferently } from "../../src/manifests/yaml-readings.js";

/**
 * The cheap scan of src/manifests/yaml-readings.ts (is there a scalar kubectl and GitOps tools may read
 * differently?) reads every manifest line a pull request can add. As a JavaScript regex it was
 * quadratic: a line of 60,000 blanks took 13 s, 1 MB about an hour (issue 41). It is now a LinearScan;
 * this holds it to that regex, its specification, on short lines (where backtracking costs nothing),
 * and counts its work on adversarial lines of 1 MB.
 */
const specification = new RegExp(
  [
    /(?:^|[:\-[{,])[ \t]*(?:[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|=|<<|[-+]?0[0-9_bBoOxX][-+]?[0-9a-fA-F_]*|[-+.0-9][0-9a-zA-Z_.+-]*_[0-9a-zA-Z_.+-]*|[-+]?[0-9]+:[0-9:.]*|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)|[0-9]{4}-[0-9]{1,2}-[0-9][^,\]}#\n]*)[ \t]*(?=$|[,\]}#]|:(?:[ \t]|$))/
      .source,
    /(?:^|[-[{,])[ \t]*(?:(?:-(?![ \t])|[+.0-9~])[^:\n]*|null|true|false|yes|no|on|off)?[ \t]*:(?:[ \t]|$)/
      .source,
    /[[,][ \t]*-[ \t]*[,\]}]/.source,
    /!!/.source,
  ].join("|"),
  "im",
);

/** Pieces the scan's alternatives are made of, so that random lines reach every one of them. */
const pieces = [
  " ",
  "\t",
  "\n",
  "\r",
  "\u2028",
  "é",
  ":",
  "-",
  "+",
  ".",
  "[",
  "]",
  "{",
  "}",
  ",",
  "#",
  "!",
  "~",
  "=",
  "<",
  "_",
  "0",
  "1",
  "7",
  "2025",
  "x",
  "b",
  "O",
  "f",
  "y",
  "N",
  "yes",
  "No",
  "ON",
  "off",
  "null",
  "True",
  "inf",
  "NaN",
  "a",
  "key",
  "0x1F",
  "2025-01-01",
  "1:30",
  "- ",
  ": ",
];
const lines = fc.array(fc.constantFrom(...pieces), { maxLength: 24 }).map((parts) => parts.join(""));

describe("validate's scan for scalars the YAML readings may read differently (issue 41)", () => {
  it("finds what its regex finds, on 20,000 random lines", () => {
    fc.assert(
      fc.property(lines, (line) => {
        assert.equal(mayReadDifferently(line), specification.test(line), JSON.stringify(line));
      }),
      { numRuns: 20_000 },
    );
  });

  const mb = 1024 * 1024;
  const fill = (unit: string, prefix = "", suffix = "") =>
    prefix + unit.repeat(Math.ceil((mb - prefix.length - suffix.length) / unit.length)) + suffix;
  // Each made the regex backtrack: blanks between a line's start and a missing colon, list signs and
  // flow commas each starting a scan to the line's end, a date followed by blanks and no end.
  const adversarial: Record<string, string> = {
    blanks: fill(" "),
    "tabs then a letter": fill("\t", "", "x"),
    "-1 repeated": fill("-1"),
    ",1 in a flow sequence": fill(",1", "["),
    dashes: fill("-"),
    "digits and dots after a key": fill("1.", "a: "),
    "dates then blanks": `${fill("2025-01-01-").slice(0, mb / 2)}${" ".repeat(mb / 2)}x`,
    colons: fill(":", "a"),
    "a key's start, then no colon": fill("~ ", "- "),
    "numbers with underscores, never ended": fill("1_", "[", "x]"),
  };
  for (const [name, line] of Object.entries(adversarial)) {
    it(`reads a 1 MB line of ${name} in one step a character`, () => {
      const work = { steps: 0 };
      mayReadDifferently(line, work);
      // A step per character and the sentinels, and what building the DFA's states costs: a constant.
      assert.ok(work.steps > 0, "work counted");
      assert.ok(work.steps <= line.length + 2 + 50_000, `${work.steps} steps for ${line.length} characters`);
    });
  }
});
