/**
 * Differential check of src/go-template/exec.ts against Go: random templates built from the shapes
 * of Go's exec tests (fields, chains, variables, literals, every built-in, pipelines, if/with/range/
 * else, break/continue, define/template, printf formats) executed by both on the data of
 * test/go-template/exec-cases.ts; prints every kind of disagreement once and the counts. Needs Go,
 * like regenerate.sh: `npx tsx tools/go-template-oracle/exec-differential.ts [count] [seed]`. Not CI.
 */
import { execFileSync } from "node:child_process";
import { WorkBudget } from "../../src/budget/work-budget.js";
import { executeTemplate } from "../../src/go-template/exec.js";
import { parseTemplate } from "../../src/go-template/index.js";
import { fromJson, Unsupported } from "../../src/go-template/values.js";
import { execData, rangeOverInt } from "../../test/go-template/exec-cases.js";

const count = Number(process.argv[2] ?? 12000);
let seed = Number(process.argv[3] ?? 1);
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;

const fields = [
  ".config.replicas",
  ".config.name",
  ".config.v",
  ".config.enabled",
  ".config.off",
  ".config.zero",
  ".config.empty",
  ".config.neg",
  ".config.len",
  ".config.missing",
  ".releaseName",
  ".namespace",
  ".list",
  ".nums",
  ".none",
  ".map",
  ".map.a",
  ".map.b",
  ".map.c",
  ".emptyMap",
  ".nested.m",
  ".nested.l",
  ".f",
  ".big",
  ".nul",
  ".uni",
  ".html",
  ".",
  "$",
  "$.list",
  ".x",
  ".config.name.x",
];
const literals = [
  "0",
  "1",
  "2",
  "-1",
  "3",
  "7",
  "1.5",
  "0.0",
  "1e3",
  "'a'",
  "0x10",
  '"a"',
  '"web"',
  '""',
  "true",
  "false",
  "nil",
  '"%d"',
  "1+1i",
];
const functions = [
  "and",
  "or",
  "not",
  "len",
  "index",
  "slice",
  "eq",
  "ne",
  "lt",
  "le",
  "gt",
  "ge",
  "print",
  "println",
  "printf",
  "html",
  "js",
  "urlquery",
  "call",
  "randBase62",
];
const formats = [
  '"%d"',
  '"%s"',
  '"%v"',
  '"%q"',
  '"%t"',
  '"%x"',
  '"%5d"',
  '"%-3s|"',
  '"%05d"',
  '"%d %s"',
  '"%%"',
  '"x"',
  '"%.1s"',
  '"%+d"',
];

function operand(depth: number): string {
  const r = random();
  if (r < 0.45 || depth > 2) return pick(random() < 0.6 ? fields : literals);
  if (r < 0.55) return `$v${Math.floor(random() * 2)}`;
  return `(${command(depth + 1)})`;
}

function command(depth: number): string {
  const r = random();
  if (r < 0.25) return operand(depth);
  const fn = pick(functions);
  // Mostly the arity the function takes, so that most runs get past the argument checks.
  const arity: Record<string, number> = {
    not: 1,
    len: 1,
    index: 2,
    slice: 2,
    eq: 2,
    ne: 2,
    lt: 2,
    le: 2,
    gt: 2,
    ge: 2,
    randBase62: 1,
  };
  const n = random() < 0.7 && fn in arity ? (arity[fn] as number) : Math.floor(random() * 3.5);
  const args = Array.from({ length: n }, () => operand(depth));
  if (fn === "printf") args.unshift(pick(formats));
  return [fn, ...args].join(" ");
}

function pipeline(depth: number): string {
  const cmds = [command(depth)];
  while (random() < 0.2) cmds.push(pick(functions) + (random() < 0.5 ? "" : ` ${operand(depth)}`));
  return cmds.join(" | ");
}

function body(depth: number): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(random() * 3);
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.35 || depth > 1) parts.push(`{{${pipeline(depth)}}}`);
    else if (r < 0.45) parts.push(pick(["x", "-", " ", "\n"]));
    else if (r < 0.55)
      parts.push(`{{if ${pipeline(depth)}}}${body(depth + 1)}{{else}}${body(depth + 1)}{{end}}`);
    else if (r < 0.65) parts.push(`{{with ${pipeline(depth)}}}${body(depth + 1)}{{end}}`);
    else if (r < 0.8) {
      const decl = pick(["", "$i := ", "$i, $e := "]);
      const inner =
        random() < 0.3 ? `{{if ${pipeline(depth)}}}{{${pick(["break", "continue"])}}}{{end}}` : "";
      parts.push(`{{range ${decl}${pipeline(depth)}}}${inner}${body(depth + 1)}{{else}}E{{end}}`);
    } else if (r < 0.9) parts.push(`{{template "t" ${operand(depth)}}}`);
    else parts.push(`{{$v${Math.floor(random() * 2)} = ${pipeline(depth)}}}`);
  }
  return parts.join("");
}

const cases = Array.from({ length: count }, (_, i) => {
  const define = random() < 0.3 ? `{{define "t"}}${body(1)}{{end}}` : `{{define "t"}}[{{.}}]{{end}}`;
  // Every other case is one action: most multi-part templates stop at their first error.
  const main = i % 2 === 1 ? `{{${pipeline(0)}}}` : body(0);
  return { name: String(i), text: `{{$v0 := .config}}{{$v1 := .list}}${define}${main}`, data: execData };
});

const go = JSON.parse(
  execFileSync("go", ["run", "."], {
    cwd: new URL(".", import.meta.url),
    input: JSON.stringify({ cases }),
    maxBuffer: 1 << 30,
  }).toString(),
).results as Record<string, { ok: boolean; error?: string; output?: string; execError?: string }>;

const data = fromJson(execData) ?? undefined;
const seen = new Set<string>();
let parsed = 0;
let agree = 0;
let agreeOnOutput = 0;
let differ = 0;
let unsupported = 0;
let go124 = 0;
let goErrors = 0;
for (const c of cases) {
  const theirs = go[c.name];
  if (!theirs?.ok) continue;
  parsed++;
  if (theirs.execError) goErrors++;
  const p = parseTemplate(c.text, { functions: ["randBase62"] });
  let mine: string;
  try {
    if (!p.ok) mine = `parse: ${p.error.message}`;
    else {
      const r = executeTemplate(c.text, p.template.trees, "", data, {
        budget: new WorkBudget(),
        randBase62: (n) => "a".repeat(n),
      });
      mine = r.ok ? `out: ${r.output}` : `err: ${r.error}`;
    }
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    unsupported++;
    continue;
  }
  const expected = theirs.execError !== undefined ? `err: ${theirs.execError}` : `out: ${theirs.output}`;
  if (mine === expected) {
    agree++;
    if (theirs.execError === undefined) agreeOnOutput++;
    continue;
  }
  if (theirs.execError && rangeOverInt.test(theirs.execError)) {
    go124++;
    continue;
  }
  differ++;
  const kind = `${expected.replace(/<[^>]*>/g, "").slice(0, 60)}`;
  if (!seen.has(kind))
    console.log(JSON.stringify(c.text), "\n  go:", expected.slice(0, 300), "\n  ts:", mine.slice(0, 300));
  seen.add(kind);
}
console.log(
  JSON.stringify({
    cases: count,
    parsedByGo: parsed,
    goExecErrors: goErrors,
    agree,
    agreeOnOutput,
    differ,
    unsupported,
    go124RangeOverInt: go124,
  }),
  execFileSync("go", ["version"]).toString().trim(),
);
