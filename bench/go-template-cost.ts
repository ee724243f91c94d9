/**
 * What a unit of the work budget costs in src/go/template, shape by shape: each shape is parsed and
 * executed with a budget it cannot exhaust, and the CPU time is divided by the units it was charged.
 * The budget reckons 12 million units to about 70 ms (6 ns a unit); a shape far above that is work the
 * accounting under-charges (the fix is to charge it more or make it cheaper). A measurement script,
 * not a test: `npx tsx bench/go-template-cost.ts [--rounds N] [--filter TEXT,...]`. Prints the shapes from
 * the costliest per unit, each also as a multiple of what an edit distance's cell costs in the same run
 * (the unit the budget was calibrated by, so that a loaded machine shifts both alike), and exits 1 if
 * any costs more than `--max` times that (default 1.2).
 */
import { parseArgs } from "node:util";
import { WorkBudget, WorkBudgetExceeded } from "../src/budget/work-budget.js";
import { executeTemplate } from "../src/go/template/exec.js";
import { parseTemplate } from "../src/go/template/index.js";
import { fromJson, type Value } from "../src/go/template/values.js";
import { editDistance, editDistanceCost } from "../src/validation/suggest.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    filter: { type: "string" },
    max: { type: "string", default: "1.2" },
    verbose: { type: "boolean", default: false },
  },
});

const config = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`a${i}`, i % 2 === 0]));
const data = fromJson({ config: { a: "abc", n: 5, ...config }, releaseName: "redis", namespace: "default" });
const mega = (unit: string, n = 1_000_000) => JSON.stringify(unit.repeat(Math.ceil(n / unit.length)));

/** Shapes: the most work per unit each kind of step can be made to do. */
const shapes: Record<string, string> = {
  "range, empty body": "{{range 1000000}}{{end}}",
  "range, text": "{{range 1000000}}x{{end}}",
  "range, field": "{{range 300000}}{{$.config.a}}{{end}}",
  "range, variable far down": `{{$v := 1}}${"{{$x := 1}}".repeat(100)}{{range 100000}}{{$v}}{{end}}`,
  "range, print": "{{range 300000}}{{print 1}}{{end}}",
  "range, len": '{{range 300000}}{{len "abc"}}{{end}}',
  "range, eq": "{{range 300000}}{{eq 1 2 3 4}}{{end}}",
  "range, index": '{{range 300000}}{{index $.config "a"}}{{end}}',
  "range, and/or": "{{range 300000}}{{and 1 0}}{{or 0 1}}{{end}}",
  "range, not of a map": "{{range 300000}}{{not $.config}}{{end}}",
  "range, if/else": "{{range 300000}}{{if .}}a{{else}}b{{end}}{{end}}",
  "range, with variables": "{{range $i, $e := $.config}}{{$i}}{{$e}}{{end}}",
  "range, a complex constant": "{{range 300000}}{{1e2i}}{{end}}",
  "range, a float constant": "{{range 300000}}{{1.5e-7}}{{end}}",
  "range, print of numbers": "{{range 100000}}{{print 1.5 2.5e300 1e2i -0.0}}{{end}}",
  "range, printf %v of a float": '{{range 100000}}{{printf "%v %v" 1.5 1e2i}}{{end}}',
  "range, break": "{{range 1000000}}{{break}}{{end}}{{range 300000}}{{continue}}{{end}}",
  "range over a map": "{{range $.config}}{{end}}",
  "range over a map, many times": "{{range 100}}{{range $.config}}{{end}}{{end}}",
  "nested parentheses": `{{range 3000}}${"(".repeat(900)}1${")".repeat(900)}{{end}}`
    .replace(/^{{range 3000}}/, "{{range 3000}}{{")
    .replace(/{{end}}$/, "}}{{end}}"),
  "printf width": '{{range 20}}{{printf "%999999d" 1}}{{end}}',
  "printf many directives": `{{range 3000}}{{printf "${"%d%s".repeat(100)}" 1 "a"}}{{end}}`,
  "printf %q": `{{printf "%q" ${mega("\\u0001é")}}}`,
  "printf %x of a string": `{{printf "%x" ${mega("é")}}}`,
  "js of spaces": `{{js (printf "%999999d" 1)}}`,
  "js of <": `{{js ${mega("<")}}}`,
  "js of control characters": `{{js ${mega("\\u0001")}}}`,
  "js of non-ASCII": `{{js ${mega("é")}}}`,
  "js of astral": `{{js ${mega("😀")}}}`,
  "js of unprintable": `{{js ${mega("\\u00ad")}}}`,
  "urlquery of spaces": `{{urlquery (printf "%999999d" 1)}}`,
  "urlquery of !": `{{urlquery ${mega("!")}}}`,
  "urlquery of é": `{{urlquery ${mega("é")}}}`,
  "html of <": `{{html ${mega("<")}}}`,
  "html of text": `{{html ${mega("a")}}}`,
  "print of a map": "{{range 20}}{{print $.config}}{{end}}",
  "printing a map": "{{range 20}}{{$.config}}{{end}}",
  "len of a map": "{{range 100}}{{len $.config}}{{end}}",
  "range, len of a map": "{{range 100000}}{{len $.config}}{{end}}",
  "lt of long strings": `{{$s := ${mega("a")}}}{{range 20}}{{lt $s $s}}{{end}}`,
  "eq of long strings": `{{$s := ${mega("a")}}}{{$t := print $s}}{{range 20}}{{eq $s $t}}{{end}}`,
  "slice of a long string": `{{$s := ${mega("a")}}}{{range 20}}{{slice $s 1 2}}{{end}}`,
  randBase62: "{{range 20}}{{randBase62 999999}}{{end}}",
  "template recursion": '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
  "template recursion in a range":
    '{{define "r"}}{{range 2}}{{template "r" .}}{{end}}{{end}}{{template "r" .}}',
  "template recursion in ifs and withs":
    '{{define "r"}}{{if 1}}{{with 2}}{{template "r" .}}{{end}}{{end}}{{end}}{{template "r" .}}',
  "template calls": '{{define "r"}}x{{end}}{{range 300000}}{{template "r" .}}{{end}}',
  "an error far into the text": `${"x".repeat(1_000_000)}{{len 1}}`,
  // Parsing and analysis alone: templates nothing calls are parsed and analysed, never executed.
  ...Object.fromEntries(
    Object.entries({
      "{{1}}": "{{1}}".repeat(100_000),
      text: `${"text ".repeat(200_000)}{{.}}`,
      fields: "{{.a.b.c.d}}".repeat(50_000),
      "strings with escapes": '{{"\\x41\\u00e9\\n"}}'.repeat(30_000),
      "long strings": `{{${mega("a")}}}`,
      numbers: "{{0x1F}}{{1.5e3}}{{'a'}}{{1_000}}{{-7}}".repeat(20_000),
      pipelines: '{{$x := .a | printf "%s" | len}}'.repeat(20_000),
      comments: "{{/* a comment */}}".repeat(50_000),
      "if/else": "{{if .a}}x{{else if .b}}y{{else}}z{{end}}".repeat(20_000),
      "deep parentheses": `{{${"(".repeat(900)}1${")".repeat(900)}}}`.repeat(100),
      "deep control": `${"{{if .}}".repeat(900)}x${"{{end}}".repeat(900)}`.repeat(20),
      variables: `${"{{$v := 1}}".repeat(1000)}${"{{$v}}".repeat(50_000)}`,
      "trim markers": "{{- 1 -}}  \n  ".repeat(50_000),
    }).map(([shape, body]) => [`parse: ${shape}`, `{{define "unused"}}${body}{{end}}`]),
  ),
  "analysis: template calls": `{{define "t"}}${"{{.a}}{{with .b}}{{.c}}{{end}}".repeat(3000)}{{end}}${Array.from(
    { length: 40 },
    (_, i) => `{{template "t" .k${i}}}`,
  ).join("")}`,
};

interface Row {
  name: string;
  units: number;
  ms: number;
  nsPerUnit: number;
}

const rounds = Number(values.rounds);

/** ns per cell of the edit distance the budget's unit was calibrated by (the least of the rounds). */
function referenceNs(): number {
  const a = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01";
  const b = "zyxwvutsrqponmlkjihgfedcba9876543210zyxwvutsrqponmlkjihgfedcba98";
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const started = process.cpuUsage();
    let sink = 0;
    for (let i = 0; i < 5000; i++) sink += editDistance(a, b);
    const used = process.cpuUsage(started);
    if (sink < 0) console.log(sink);
    best = Math.min(best, ((used.user + used.system) * 1000) / (5000 * editDistanceCost(a, b)));
  }
  return best;
}

const reference = referenceNs();
const rows: Row[] = [];
for (const [name, text] of Object.entries(shapes)) {
  if (values.filter && !values.filter.split(",").some((part) => name.includes(part))) continue;
  let best: Row | undefined;
  for (let r = 0; r < rounds; r++) {
    const budget = new WorkBudget(10_000_000_000);
    const started = process.cpuUsage();
    const parsed = parseTemplate(text, { functions: ["randBase62"], budget });
    if (!parsed.ok) throw new Error(`${name}: ${parsed.error.message}`);
    try {
      executeTemplate(text, parsed.template.trees, "", data as Value, {
        budget,
        randBase62: (n) => "a".repeat(n),
      });
    } catch (e) {
      if (!(e instanceof WorkBudgetExceeded)) throw e;
    }
    const used = process.cpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    const row = { name, units: budget.spent, ms, nsPerUnit: (ms * 1e6) / budget.spent };
    if (!best || row.nsPerUnit < best.nsPerUnit) best = row;
  }
  rows.push(best as Row);
  if (values.verbose) console.error(`${((best as Row).nsPerUnit / reference).toFixed(2)} x  ${name}`);
}
rows.sort((a, b) => b.nsPerUnit - a.nsPerUnit);
console.log(`an edit distance's cell: ${reference.toFixed(2)} ns (the reference)`);
for (const row of rows)
  console.log(
    `${(row.nsPerUnit / reference).toFixed(2).padStart(6)} x  ${row.nsPerUnit.toFixed(2).padStart(7)} ns/unit  ${row.ms.toFixed(1).padStart(7)} ms  ${(row.units / 1e6).toFixed(2).padStart(8)} M units  ${row.name}`,
  );
const over = rows.filter((row) => row.nsPerUnit / reference > Number(values.max));
console.log(`${over.length} shape(s) over ${values.max} times the reference`);
process.exitCode = over.length > 0 ? 1 : 0;
