/**
 * A generator of Go text/template programs and of the data the Forkspacer operator renders them with,
 * from Go's template grammar (text/template/parse): text, comments and trim markers; actions whose
 * pipelines declare and assign variables; commands of fields, variables, `$`, `.`, every literal form
 * (decimal, hex, octal, binary and underscored integers, floats, hex floats, imaginary numbers, character
 * constants, quoted and raw strings, booleans, nil) and parenthesized pipelines; every built-in
 * (`and or not len index slice call html js urlquery print printf println eq ne lt le gt ge`) and the
 * operator's FuncMap (`randBase62`), with printf formats of every flag, width and precision;
 * `if`/`else if`, `with`/`else with`, `range` over integers, maps and lists with one or two variables,
 * `break` and `continue`, `define`, `template` and `block`, recursion that ends and recursion that does
 * not, and nesting to a chosen depth. Variables are drawn from those in scope, so most programs parse;
 * a share are meant not to (a wrong arity, a field of a literal, an unknown function).
 *
 * The API (fast-check arbitraries; shared by the webhook's fuzz and the Go oracle differential):
 *
 * ```ts
 * fc.sample(templateText({ maxDepth: 4, heavy: false }), 1)   // ["{{range $i, $e := .config}}..."]
 * fc.sample(templateCase(), 1)  // [{ text, data: { config: {...}, releaseName, namespace } }]
 * fc.sample(goData(), 1)        // any data Go's JSON decoder makes: maps, lists, ints, floats, ...
 * fc.sample(moduleWithTemplates(), 1)  // a Module whose config and templates these make (the webhook's input)
 * ```
 *
 * Data is JSON with Go's types by convention (as the operator's data and `values.fromJson`): a whole
 * number is an `int`, any other number a `float64`, an object a `map[string]any`, an array a `[]any`.
 * `randBase62` is the operator's (random letters and digits of the given length); an oracle that wants
 * a fixed output can define it as `strings.Repeat("a", n)`, as the webhook's executor runs it.
 */
import fc from "fast-check";
import type { ConfigItem, Module } from "../../src/generated/module.js";
import { helmModule } from "./modules.js";

export interface GrammarOptions {
  /**
   * A share of programs (about one in eight, default true) get one edit that may break them: a
   * character dropped, or a delimiter, parenthesis, pipe, quote or keyword put in, for Go's parse errors.
   */
  mutate?: boolean;
  /** Control structures, parentheses and template calls nested at most this deep (default 4). */
  maxDepth?: number;
  /**
   * Expensive programs too (default false): printf widths and precisions, `range` counts and
   * randBase62 lengths up to 999,999, nested ranges, recursion that never ends.
   */
  heavy?: boolean;
}

/** The config aliases templates read and data holds (some templates read aliases the data lacks). */
export const configAliases = ["a", "b", "replicas", "name", "enabled", "version", "big"] as const;

/** The templates a program may define and call. */
const templateNames = ["t0", "t1", "t2"] as const;

/** What the operator passes a helm template: config, releaseName and namespace (custom: config only). */
export interface TemplateData {
  config: Record<string, GoJson>;
  releaseName?: string;
  namespace?: string;
  /** With `anyData`: a list and a map of any data, which templates range over. */
  list?: GoJson;
  map?: GoJson;
}

/** JSON with Go's types: a whole number is an int, another number a float64. */
export type GoJson = null | boolean | number | string | GoJson[] | { [key: string]: GoJson };

/** A program and the data to render it with. */
export interface TemplateCase {
  text: string;
  data: TemplateData;
}

// ---- The abstract program: nodes with the random picks that the renderer resolves in scope ---------

type Operand =
  | { t: "field"; path: readonly string[] }
  | { t: "var"; pick: number; path: readonly string[] }
  | { t: "dot" }
  | { t: "literal"; text: string }
  | { t: "paren"; pipe: Pipe };

type Command = { t: "operand"; operand: Operand } | { t: "call"; fn: string; args: Operand[] };

interface Pipe {
  /** `$x :=` (declare) or `$x =` (assign an existing variable), or none. */
  decl?: ":=" | "=";
  pick: number;
  cmds: Command[];
}

type Item =
  | { t: "text"; text: string }
  | { t: "comment"; text: string }
  | { t: "action"; pipe: Pipe; trim: [boolean, boolean] }
  | { t: "if" | "with"; pipe: Pipe; body: Item[]; elses: { pipe: Pipe; body: Item[] }[]; otherwise?: Item[] }
  | { t: "range"; vars: 0 | 1 | 2; over: Pipe; body: Item[]; otherwise?: Item[] }
  | { t: "break" | "continue"; pick: number }
  | { t: "template"; name: number; pipe?: Pipe }
  | { t: "block"; name: number; pipe: Pipe; body: Item[] };

interface Program {
  defines: { name: number; body: Item[] }[];
  body: Item[];
}

// ---- Literals ---------------------------------------------------------------------------------------

const intLiteral = (heavy: boolean) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -3, max: 12 }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom("0x1F", "0o17", "017", "0b101", "1_000", "0X_1f", "-0x10") },
    { weight: 1, arbitrary: fc.constantFrom("'a'", "'\\n'", "'é'", "'\\x41'", "'\\u00e9'") },
    {
      weight: 1,
      arbitrary: heavy
        ? fc.constantFrom("999999", "100000", "9223372036854775807", "18446744073709551615")
        : fc.constantFrom("9223372036854775807", "18446744073709551615", "1e3"),
    },
  );

const floatLiteral = fc.constantFrom("1.5", "-2.25", "1e3", "1e-7", "0x1p-2", ".5", "1_0.5", "2.0");
const complexLiteral = fc.constantFrom("1i", "2.5i", "1e2i", "0x10p0i");

const stringPieces = [
  "",
  "x",
  "a b",
  "1",
  "1.5",
  "true",
  "null",
  "[1]",
  '{\\"k\\":1}',
  "é",
  "日本",
  "<&>'=",
  "\\n",
  "\\t",
  '\\"',
  "\\x41",
  "\\u00e9",
  "\\U0001F600",
  "%",
  "%d",
  "%s %v",
  "-",
  "redis",
];

const quotedString = fc
  .array(fc.constantFrom(...stringPieces), { maxLength: 3 })
  .map((parts) => `"${parts.join("")}"`);
const rawString = fc
  .array(fc.constantFrom("", "x", "a\\nb", '"q"', "é", "1", "{", "\n"), { maxLength: 3 })
  .map((parts) => `\`${parts.join("")}\``);

// ---- printf formats ------------------------------------------------------------------------------

const verbs = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom("v", "s", "d", "q", "t", "x", "X", "%") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "e",
      "E",
      "f",
      "F",
      "g",
      "G",
      "c",
      "b",
      "o",
      "O",
      "U",
      "T",
      "p",
      "w",
      "z",
      "!",
    ),
  },
);

/** A width or precision: a number, `*` (taken from the arguments), or an explicit argument index. */
const sizeOrStar = (size: fc.Arbitrary<number>) =>
  fc.oneof(
    { weight: 8, arbitrary: size.map(String) },
    { weight: 1, arbitrary: fc.constantFrom("*", "[1]*", "[2]*", "[9]*") },
  );

function formatDirective(heavy: boolean): fc.Arbitrary<string> {
  const size = heavy
    ? fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constantFrom(1000, 10000, 100000, 999999))
    : fc.integer({ min: 0, max: 20 });
  return fc
    .record({
      flags: fc.array(fc.constantFrom("-", "-", "+", "+", "0", "0", "#", " "), { maxLength: 2 }),
      index: fc.option(fc.constantFrom("[1]", "[2]", "[3]", "[0]", "[x]"), { freq: 8 }),
      width: fc.option(sizeOrStar(size), { freq: 2 }),
      precision: fc.option(sizeOrStar(size), { freq: 3 }),
      verb: verbs,
    })
    .map(
      ({ flags, index, width, precision, verb }) =>
        `%${flags.join("")}${width ?? ""}${precision === null ? "" : `.${precision}`}${index ?? ""}${verb}`,
    );
}

function printfFormat(heavy: boolean): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(formatDirective(heavy), fc.constantFrom("x", " ", "-", "é", "[", "]", "%%")), {
      minLength: 1,
      maxLength: 4,
    })
    .map((parts) => JSON.stringify(parts.join("")));
}

// ---- Operands, commands, pipelines, items ----------------------------------------------------------

const fieldPaths = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...configAliases).map((alias) => ["config", alias]) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(["config"], ["releaseName"], ["namespace"], ["missing"], ["config", "nope"]),
  },
  { weight: 1, arbitrary: fc.constantFrom(["config", "a", "b"], ["releaseName", "x"], ["a"], ["k"]) },
);

/**
 * Each built-in with the argument counts it takes (and sometimes one more or less), and how often it
 * is drawn: the functions that take any value oftener, so that more programs run to their end.
 */
const functions: { name: string; args: [number, number]; weight: number }[] = [
  { name: "and", args: [1, 3], weight: 2 },
  { name: "or", args: [1, 3], weight: 2 },
  { name: "not", args: [1, 1], weight: 2 },
  { name: "len", args: [1, 1], weight: 2 },
  { name: "index", args: [1, 3], weight: 2 },
  { name: "slice", args: [1, 3], weight: 1 },
  { name: "call", args: [1, 2], weight: 1 },
  { name: "html", args: [0, 3], weight: 3 },
  { name: "js", args: [0, 3], weight: 3 },
  { name: "urlquery", args: [0, 3], weight: 3 },
  { name: "print", args: [0, 3], weight: 4 },
  { name: "println", args: [0, 3], weight: 2 },
  { name: "printf", args: [1, 4], weight: 6 },
  { name: "eq", args: [2, 3], weight: 2 },
  { name: "ne", args: [2, 2], weight: 1 },
  { name: "lt", args: [2, 2], weight: 1 },
  { name: "le", args: [2, 2], weight: 1 },
  { name: "gt", args: [2, 2], weight: 1 },
  { name: "ge", args: [2, 2], weight: 1 },
  { name: "randBase62", args: [1, 1], weight: 2 },
];

interface Grammar {
  operand: (depth: number) => fc.Arbitrary<Operand>;
  pipe: (depth: number) => fc.Arbitrary<Pipe>;
  items: (depth: number) => fc.Arbitrary<Item[]>;
}

function grammar(options: GrammarOptions): Grammar {
  const heavy = options.heavy ?? false;
  const literal = fc
    .oneof(
      { weight: 5, arbitrary: intLiteral(heavy) },
      { weight: 1, arbitrary: floatLiteral },
      { weight: 1, arbitrary: complexLiteral },
      { weight: 4, arbitrary: quotedString },
      { weight: 1, arbitrary: rawString },
      { weight: 2, arbitrary: fc.constantFrom("true", "false") },
      { weight: 1, arbitrary: fc.constant("nil") },
    )
    .map((text): Operand => ({ t: "literal", text }));
  const simple = fc.oneof(
    { weight: 4, arbitrary: fieldPaths.map((path): Operand => ({ t: "field", path })) },
    {
      weight: 3,
      arbitrary: fc
        .record({
          pick: fc.nat(),
          path: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fieldPaths }),
        })
        .map(({ pick, path }): Operand => ({ t: "var", pick, path })),
    },
    { weight: 2, arbitrary: fc.constant<Operand>({ t: "dot" }) },
    { weight: 5, arbitrary: literal },
  );
  const operand = fc.memo((depth: number): fc.Arbitrary<Operand> => {
    if (depth <= 1) return simple;
    return fc.oneof(
      { weight: 5, arbitrary: simple },
      { weight: 1, arbitrary: pipe(depth - 1).map((p): Operand => ({ t: "paren", pipe: p })) },
    );
  });
  /** A call; `piped`: a later command of a pipeline, which gets the value before it as its last argument. */
  const call = (depth: number, piped = false): fc.Arbitrary<Command> =>
    fc.oneof(...functions.map((fn) => ({ weight: fn.weight, arbitrary: fc.constant(fn) }))).chain((fn) => {
      // Mostly the arity the function takes; sometimes one argument less or more.
      const [min, max] = piped ? [Math.max(0, fn.args[0] - 1), fn.args[1] - 1] : fn.args;
      const arity = fc.oneof(
        { weight: 5, arbitrary: fc.integer({ min, max: Math.max(min, max) }) },
        { weight: 1, arbitrary: fc.constantFrom(Math.max(0, min - 1), max + 1) },
      );
      const args = arity.chain((n) => fc.array(operand(depth), { minLength: n, maxLength: n }));
      const special =
        fn.name === "printf" && !piped
          ? fc
              .tuple(printfFormat(heavy), fc.array(operand(depth), { maxLength: 3 }))
              .map(([format, rest]) => [{ t: "literal", text: format } as Operand, ...rest])
          : fn.name === "randBase62" && !piped
            ? (heavy ? fc.constantFrom(0, 5, 62, 100000, 999999) : fc.integer({ min: 0, max: 20 })).map(
                (n) => [{ t: "literal", text: String(n) } as Operand],
              )
            : undefined;
      const chosen = special
        ? fc.oneof({ weight: 4, arbitrary: special }, { weight: 1, arbitrary: args })
        : args;
      return chosen.map((a): Command => ({ t: "call", fn: fn.name, args: a }));
    });
  const command = (depth: number): fc.Arbitrary<Command> =>
    fc.oneof(
      { weight: 2, arbitrary: operand(depth).map((o): Command => ({ t: "operand", operand: o })) },
      { weight: 3, arbitrary: call(depth) },
    );
  const pipe = fc.memo(
    (depth: number): fc.Arbitrary<Pipe> =>
      fc
        .record({
          decl: fc.option(fc.constantFrom<":=" | "=">(":=", ":=", "="), { freq: 4 }),
          pick: fc.nat(),
          first: command(depth),
          rest: fc.array(call(depth, true), { maxLength: 2 }),
        })
        .map(({ decl, pick, first, rest }) => ({
          ...(decl ? { decl } : {}),
          pick,
          cmds: [first, ...rest],
        })),
  );
  const rangeOver = (depth: number): fc.Arbitrary<Pipe> =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: (heavy
          ? fc.constantFrom("0", "3", "20", "1000", "100000", "999999")
          : fc.constantFrom("0", "1", "3", "5")
        ).map((n): Pipe => ({ pick: 0, cmds: [{ t: "operand", operand: { t: "literal", text: n } }] })),
      },
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(["config"], ["config", "a"], ["config", "name"], ["list"], ["map"], [])
          .map(
            (path): Pipe => ({
              pick: 0,
              cmds: [{ t: "operand", operand: path.length ? { t: "field", path } : { t: "dot" } }],
            }),
          ),
      },
      { weight: 1, arbitrary: pipe(depth) },
    );
  const leaf: fc.Arbitrary<Item> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .constantFrom("", "x", " ", "\n", "a b", '"', "{ ", "}", "é", "<&>", "[", "1", "true", ",")
        .map((text): Item => ({ t: "text", text })),
    },
    { weight: 1, arbitrary: fc.constantFrom(" c ", "", "*").map((text): Item => ({ t: "comment", text })) },
    { weight: 1, arbitrary: fc.constantFrom("break", "continue").map((t): Item => ({ t, pick: 0 })) },
  );
  const items = fc.memo((depth: number): fc.Arbitrary<Item[]> => {
    const action = fc
      .record({ pipe: pipe(Math.max(1, depth)), trim: fc.tuple(fc.boolean(), fc.boolean()) })
      .map(({ pipe: p, trim }): Item => ({ t: "action", pipe: p, trim }));
    const kinds: fc.WeightedArbitrary<Item>[] = [
      ...(heavy && depth > 1 ? [{ weight: 2, arbitrary: costly(items(depth - 1)) }] : []),
      { weight: 4, arbitrary: leaf },
      { weight: 5, arbitrary: action },
      {
        weight: 1,
        arbitrary: fc
          .record({ name: fc.nat(), pipe: fc.option(pipe(1), { freq: 3 }) })
          .map(({ name, pipe: p }): Item => ({ t: "template", name, ...(p ? { pipe: p } : {}) })),
      },
    ];
    if (depth > 1) {
      const body = items(depth - 1);
      kinds.push(
        {
          weight: 2,
          arbitrary: fc
            .record({
              t: fc.constantFrom<"if" | "with">("if", "with"),
              pipe: pipe(depth - 1),
              body,
              elses: fc.array(fc.record({ pipe: pipe(depth - 1), body }), { maxLength: 2 }),
              otherwise: fc.option(body, { freq: 2 }),
            })
            .map(({ otherwise, ...rest }): Item => ({ ...rest, ...(otherwise ? { otherwise } : {}) })),
        },
        {
          weight: 2,
          arbitrary: fc
            .record({
              vars: fc.constantFrom<0 | 1 | 2>(0, 1, 2),
              over: rangeOver(depth - 1),
              body,
              otherwise: fc.option(body, { freq: 3 }),
            })
            .map(
              ({ otherwise, ...rest }): Item => ({
                t: "range",
                ...rest,
                ...(otherwise ? { otherwise } : {}),
              }),
            ),
        },
        {
          weight: 1,
          arbitrary: fc
            .record({ name: fc.nat(), pipe: pipe(1), body })
            .map((block): Item => ({ t: "block", ...block })),
        },
      );
    }
    return fc.array(fc.oneof(...kinds), { minLength: 1, maxLength: 4 });
  });
  return { operand, pipe, items };
}

/**
 * Loops whose cost is in their numbers (heavy programs only): a large integer range around a body, or
 * around a built-in applied to a wide printf, the shapes that once held the webhook for seconds.
 */
function costly(body: fc.Arbitrary<Item[]>): fc.Arbitrary<Item> {
  const count = fc.constantFrom("20", "1000", "100000", "999999");
  const width = fc.constantFrom("100", "10000", "999999");
  const fn = fc.constantFrom(
    "js",
    "urlquery",
    "html",
    "print",
    "len",
    'printf "%s"',
    'printf "%.999999s"',
    'printf "%q"',
    'printf "% x"',
  );
  return fc.oneof(
    fc.record({ count, body }).map(
      ({ count: n, body: b }): Item => ({
        t: "range",
        vars: 0,
        over: { pick: 0, cmds: [{ t: "operand", operand: { t: "literal", text: n } }] },
        body: b,
      }),
    ),
    fc.record({ count, width, fn }).map(
      ({ count: n, width: w, fn: f }): Item => ({
        t: "text",
        text: `{{range ${n}}}{{$x := ${f} (printf "%${w}d" 1)}}{{end}}`,
      }),
    ),
    // What a precision or a `*` width builds: zeros, digits, a float's expansion, a code point's hex.
    fc
      .record({
        count,
        width,
        format: fc.constantFrom("%.Wd", "%.Wf", "%W.We", "%.WU", "%*d", "%-*.*x", "%.Wg"),
      })
      .map(
        ({ count: n, width: w, format }): Item => ({
          t: "text",
          text: `{{range ${n}}}{{$x := printf "${format.replaceAll("W", w)}" ${w} 2.5}}{{$y := printf "%e %.${w}f" 5e-324 1e308}}{{end}}`,
        }),
      ),
  );
}

/** Recursion patterns: one that ends (a string shortened by slice until empty) and, heavy, one that does not. */
function recursion(heavy: boolean): fc.Arbitrary<Program["defines"]> {
  const ends = fc.constantFrom(
    '{{if .}}{{len .}},{{template "t0" slice . 1}}{{end}}',
    '{{if .}}{{index . 0}}{{template "t0" slice . 1}}{{else}}.{{end}}',
    '{{with .}}{{template "t1" slice . 1}}{{end}}',
  );
  const never = fc.constantFrom(
    '{{template "t0" .}}',
    'x{{template "t1" .}}',
    '{{range 2}}{{template "t0"}}{{end}}',
  );
  return fc
    .oneof(ends, ...(heavy ? [never] : []))
    .map((body) => [{ name: body.includes('"t1"') ? 1 : 0, body: [{ t: "text", text: body } as Item] }]);
}

// ---- Rendering, with variables resolved in scope -----------------------------------------------------

class Renderer {
  private scope: string[] = ["$"];
  private declared = 0;
  private ranges = 0;
  private blocks = 0;
  private defined: string[] = [];

  program(p: Program): string {
    let out = "";
    const defined = new Set<string>();
    for (const d of p.defines) {
      const name = templateNames[d.name % templateNames.length] as string;
      if (defined.has(name)) continue;
      defined.add(name);
      this.defined.push(name);
      this.scope = ["$"];
      this.ranges = 0;
      out += `{{define "${name}"}}${this.items(d.body)}{{end}}`;
    }
    this.scope = ["$"];
    this.ranges = 0;
    return out + this.items(p.body);
  }

  private items(items: Item[]): string {
    return items.map((item) => this.item(item)).join("");
  }

  private withScope<T>(f: () => T): T {
    const mark = this.scope.length;
    try {
      return f();
    } finally {
      this.scope.length = mark;
    }
  }

  private item(item: Item): string {
    switch (item.t) {
      case "text":
        return item.text;
      case "comment":
        return `{{/*${item.text}*/}}`;
      case "action":
        return `{{${item.trim[0] ? "- " : ""}${this.pipe(item.pipe)}${item.trim[1] ? " -" : ""}}}`;
      case "break":
      case "continue":
        return this.ranges > 0 ? `{{${item.t}}}` : "";
      case "template": {
        // Mostly a template the program defines; now and then one it does not.
        const known = this.defined.length > 0 && item.name % 8 !== 0 ? this.defined : templateNames;
        const name = known[item.name % known.length];
        return `{{template "${name}"${item.pipe ? ` ${this.pipe({ ...item.pipe, decl: undefined })}` : ""}}}`;
      }
      case "block": {
        // A block defines its template: a name of its own, as two non-empty definitions of one name fail.
        const name = `b${this.blocks++}`;
        const pipe = this.pipe({ ...item.pipe, decl: undefined });
        // A block's body is a template of its own: no variables of the caller, no enclosing range.
        const saved = { scope: this.scope, ranges: this.ranges };
        this.scope = ["$"];
        this.ranges = 0;
        const body = this.items(item.body);
        this.scope = saved.scope;
        this.ranges = saved.ranges;
        return `{{block "${name}" ${pipe}}}${body}{{end}}`;
      }
      case "if":
      case "with":
        return this.withScope(() => {
          let out = `{{${item.t} ${this.pipe(item.pipe)}}}${this.items(item.body)}`;
          for (const branch of item.elses)
            out += `{{else ${item.t} ${this.pipe(branch.pipe)}}}${this.items(branch.body)}`;
          if (item.otherwise) out += `{{else}}${this.items(item.otherwise)}`;
          return `${out}{{end}}`;
        });
      case "range":
        return this.withScope(() => {
          const over = this.pipe({ ...item.over, decl: undefined });
          let decl = "";
          // Two variables over an integer fail; mostly one is declared there.
          const overInteger = /^\d+$/.test(over);
          const vars = overInteger && item.vars === 2 && over.length % 2 === 0 ? 1 : item.vars;
          if (vars > 0) {
            const names = Array.from({ length: vars }, () => this.fresh());
            decl = `${names.join(", ")} := `;
            this.scope.push(...names);
          }
          this.ranges++;
          const body = this.items(item.body);
          this.ranges--;
          const otherwise = item.otherwise ? `{{else}}${this.items(item.otherwise)}` : "";
          return `{{range ${decl}${over}}}${body}${otherwise}{{end}}`;
        });
    }
  }

  private fresh(): string {
    return `$v${this.declared++}`;
  }

  private pipe(pipe: Pipe): string {
    const cmds = pipe.cmds.map((c) => this.command(c)).join(" | ");
    if (!pipe.decl) return cmds;
    if (pipe.decl === "=" && this.scope.length > 1) {
      const target = this.scope[1 + (pipe.pick % (this.scope.length - 1))];
      return `${target} = ${cmds}`;
    }
    const name = this.fresh();
    // Declared after the pipeline is parsed: the pipeline cannot read it.
    this.scope.push(name);
    return `${name} := ${cmds}`;
  }

  private command(cmd: Command): string {
    if (cmd.t === "operand") return this.operand(cmd.operand);
    return [cmd.fn, ...cmd.args.map((a) => this.operand(a))].join(" ");
  }

  private operand(o: Operand): string {
    switch (o.t) {
      case "field":
        return `.${o.path.join(".")}`;
      case "var": {
        const name = this.scope[o.pick % this.scope.length] as string;
        return o.path.length ? `${name}.${o.path.join(".")}` : name;
      }
      case "dot":
        return ".";
      case "literal":
        return o.text;
      case "paren":
        return `(${this.pipe({ ...o.pipe, decl: undefined })})`;
    }
  }
}

/** Go templates from the grammar, as text. */
export function templateText(options: GrammarOptions = {}): fc.Arbitrary<string> {
  const g = grammar(options);
  const depth = options.maxDepth ?? 4;
  const heavy = options.heavy ?? false;
  const defines = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Program["defines"]>([]) },
    {
      weight: 2,
      arbitrary: fc.array(fc.record({ name: fc.nat(), body: g.items(Math.max(1, depth - 1)) }), {
        maxLength: 2,
      }),
    },
    { weight: 1, arbitrary: recursion(heavy) },
  );
  const programs = fc
    .record({ defines, body: g.items(depth) })
    .map((program) => new Renderer().program(program));
  if (options.mutate === false) return programs;
  return fc.oneof({ weight: 7, arbitrary: programs }, { weight: 1, arbitrary: programs.chain(mutated) });
}

const insertions = [
  "{{",
  "}}",
  "(",
  ")",
  "|",
  "$",
  '"',
  "`",
  "{{end}}",
  "{{else}}",
  " := ",
  ".",
  "-}}",
  "{{-",
];

/** `text` with one edit at a drawn place: a character dropped, or a piece of syntax put in. */
function mutated(text: string): fc.Arbitrary<string> {
  return fc
    .record({
      at: fc.nat({ max: Math.max(0, text.length - 1) }),
      insert: fc.option(fc.constantFrom(...insertions)),
    })
    .map(({ at, insert }) => text.slice(0, at) + (insert ?? "") + text.slice(insert === null ? at + 1 : at));
}

// ---- Data ------------------------------------------------------------------------------------------

const stringValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...stringPieces.filter((s) => !s.includes("\\"))) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom("0", "-1", "1e400", "[1,2]", '"x"', "   ", "a".repeat(100)) },
);

const scalar: fc.Arbitrary<GoJson> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
  {
    weight: 1,
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 3, arbitrary: stringValue },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** Any data Go's JSON decoder makes (maps, lists, ints, floats, strings, bools, nil), to `depth` levels. */
export function goData(depth = 3): fc.Arbitrary<GoJson> {
  const value = fc.memo(
    (n: number): fc.Arbitrary<GoJson> =>
      n <= 1
        ? scalar
        : fc.oneof(
            { weight: 3, arbitrary: scalar },
            { weight: 1, arbitrary: fc.array(value(n - 1), { maxLength: 4 }) },
            {
              weight: 1,
              arbitrary: fc.dictionary(fc.constantFrom(...configAliases, "k", "é", ""), value(n - 1), {
                maxKeys: 4,
              }),
            },
          ),
  );
  return value(depth);
}

/** A config item of each type the operator knows, with its value in spec.config or its default. */
const configEntry = (alias: string) =>
  fc.oneof(
    fc.record({ value: fc.integer({ min: -5, max: 100 }), given: fc.boolean() }).map(({ value, given }) => ({
      item: { name: alias, alias, integer: { default: given ? 0 : value } } as ConfigItem,
      value: given ? value : undefined,
      data: value as GoJson,
    })),
    fc.record({ value: fc.boolean(), given: fc.boolean() }).map(({ value, given }) => ({
      item: { name: alias, alias, boolean: { default: given ? false : value } } as ConfigItem,
      value: given ? value : undefined,
      data: value as GoJson,
    })),
    fc.record({ value: stringValue, given: fc.boolean() }).map(({ value, given }) => ({
      item: { name: alias, alias, string: { default: given ? "" : (value as string) } } as ConfigItem,
      value: given ? value : undefined,
      data: value as GoJson,
    })),
  );

/** A Module's config items and values, and the config data the operator builds from them. */
export function configData(): fc.Arbitrary<{
  items: ConfigItem[];
  values: Record<string, unknown>;
  config: Record<string, GoJson>;
}> {
  return fc.subarray([...configAliases], { minLength: 0 }).chain((aliases) =>
    fc.tuple(...aliases.map(configEntry)).map((entries) => {
      const items: ConfigItem[] = [];
      const values: Record<string, unknown> = {};
      const config: Record<string, GoJson> = {};
      for (const [i, entry] of entries.entries()) {
        const alias = aliases[i] as string;
        items.push(entry.item);
        if (entry.value !== undefined) values[alias] = entry.value;
        config[alias] = entry.data;
      }
      return { items, values, config };
    }),
  );
}

/**
 * A program and helm data as the operator passes it; with `anyData`, the data also holds `list` and
 * `map` of any data Go's JSON decoder makes (beyond what the operator passes, for an oracle).
 */
export function templateCase(
  options: GrammarOptions & { anyData?: boolean } = {},
): fc.Arbitrary<TemplateCase> {
  return fc
    .record({
      text: templateText(options),
      config: configData(),
      releaseName: fc.constantFrom("redis-main", "r", "a1"),
      namespace: fc.constantFrom("default", "data", "kube-system"),
      list: fc.array(goData(2), { maxLength: 5 }),
      map: fc.dictionary(fc.constantFrom(...configAliases, "k", "é"), goData(2), { maxKeys: 5 }),
    })
    .map(({ text, config, releaseName, namespace, list, map }) => ({
      text,
      data: { config: config.config, releaseName, namespace, ...(options.anyData ? { list, map } : {}) },
    }));
}

/**
 * A helm Module (the tests' `helmModule`) with generated config and 1 to `templates` generated
 * programs in its chart values (free-form) and, for one of them, in its chart version (a string field).
 */
export function moduleWithTemplates(
  options: GrammarOptions & { templates?: number } = {},
): fc.Arbitrary<Module> {
  return fc
    .record({
      config: configData(),
      texts: fc.array(templateText(options), { minLength: 1, maxLength: options.templates ?? 3 }),
      inVersion: fc.boolean(),
    })
    .map(({ config, texts, inVersion }) => {
      const module = helmModule();
      module.config = config.items;
      module.spec.config = config.values;
      const helm = module.spec.helm;
      if (helm) {
        helm.values = [{ raw: Object.fromEntries(texts.map((text, i) => [`v${i}`, text])) }];
        if (inVersion && helm.chart.repo) helm.chart.repo.version = texts[0] as string;
      }
      return module;
    });
}
