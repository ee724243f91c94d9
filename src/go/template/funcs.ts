/**
 * text/template's built-in functions (Go 1.24's funcs.go) and the operator's randBase62, for the values
 * in values.ts. Each charges the work it does by the sizes it reads and builds (see `costs` in
 * exec.ts), and charges before it builds whatever a few characters of template could make long.
 */
import { Buffer } from "node:buffer";
import { isPrint } from "../strconv/go-strings.js";
import { costs } from "./costs.js";
import { type Charge, type FmtArg, formatValue, formatValueS, sprint, sprintf, sprintln } from "./fmt.js";
import {
  Boxed,
  compareGoStrings,
  GoComplex,
  GoFloat,
  type GoMap,
  GoStrings,
  GoUint,
  type GoValue,
  isMap,
  keysKnown,
  mapKeys,
  sortedKeysKnown,
  typeName,
  Unsupported,
  unbox,
  type Value,
} from "./values.js";

/** A parameter's type in a built-in's signature: reflect.Value, any, string or uint. */
export type ParamType = "value" | "any" | "string" | "uint";

/** What a built-in may use besides its arguments. */
export interface CallContext {
  /** Charges `units` of work (throws WorkBudgetExceeded once the review's budget is spent). */
  charge: Charge;
  /** randBase62's result for a length, called only once the length is paid for. */
  randBase62: (length: number) => string;
}

export interface Signature {
  params: ParamType[];
  variadic: boolean;
  fn: (args: Value[], context: CallContext) => Value;
}

/** An error a built-in returns: the executor reports it as `error calling <name>: <message>`. */
export class GoError extends Error {}

/** isTrue: whether a value is non-zero (invalid counts as false). A map's keys are listed once per map. */
export function isTrue(v: Value): boolean {
  if (v === undefined || v === null) return false;
  if (v instanceof Boxed) return v.value !== null;
  switch (typeof v) {
    case "string":
      return v.length > 0;
    case "number":
      return v !== 0;
    case "bigint":
      return true; // only ints beyond 2^53-1 are bigints
    case "boolean":
      return v;
  }
  if (v instanceof GoFloat) return v.value !== 0;
  if (v instanceof GoComplex) return v.re !== 0 || v.im !== 0;
  if (v instanceof GoUint) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  // for...in would list a large map's keys on every test: they are listed once per map.
  return mapKeys(v).length > 0;
}

/**
 * Charges sorting a map's keys, the first time they are sorted (then they are known): a unit per key
 * and comparison.
 */
export function chargeSorting(map: GoMap, charge: Charge): void {
  if (sortedKeysKnown(map)) return;
  const n = mapKeys(map).length;
  charge(costs.sortedKey * n * Math.max(1, Math.ceil(Math.log2(n + 1))));
}

/**
 * Charges printing a value before it is printed: for a map or list, each entry of it and of the maps
 * and lists in it (each costs far more than its characters), and each map's sorting.
 */
export function chargePrinting(value: Value, charge: Charge): void {
  const v = value instanceof Boxed ? value.value : value;
  if (v instanceof GoFloat || v instanceof GoComplex) {
    charge(costs.printedNumber);
    return;
  }
  if (v === null || typeof v !== "object" || !(Array.isArray(v) || isMap(v))) return;
  const pending: unknown[] = [v];
  while (pending.length > 0) {
    const v = pending.pop();
    let entries: readonly unknown[];
    if (Array.isArray(v)) entries = v;
    else if (isMap(v)) {
      chargeSorting(v, charge);
      entries = Object.values(v);
    } else continue;
    charge(costs.printedEntry * entries.length);
    for (const entry of entries) if (entry !== null && typeof entry === "object") pending.push(entry);
  }
}

/** A value as an `any` argument holds it: nil for invalid and for a nil interface. */
export const toAny = (v: Value): FmtArg => (v instanceof Boxed ? v.value : (v ?? null));

/** A string built from values, paid for by its length once built (its parts were paid for already). */
function built(text: string, context: CallContext): string {
  context.charge(text.length);
  return text;
}

/** funcs.go's evalArgs: html, js and urlquery print their arguments as a template prints a value. */
function evalArgs(args: Value[], context: CallContext): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  for (const arg of args) chargePrinting(arg, context.charge);
  return built(sprint(args.map((a) => (toAny(a) === null ? "<no value>" : toAny(a)))), context);
}

/**
 * The escaping functions replace each special character with its escape by a pass of the runtime's own
 * replaceAll per character (a callback per match costs 50-100 ns: a million of them would be 0.1 s).
 */
function replaceEach(s: string, escapes: readonly (readonly [string, string])[]): string {
  let out = s;
  for (const [from, to] of escapes) if (out.includes(from)) out = out.replaceAll(from, to);
  return out;
}

/** template.HTMLEscapeString ('&' first: the other escapes add ampersands). */
const htmlEscapes = [
  ["&", "&amp;"],
  ["\0", "\uFFFD"],
  ['"', "&#34;"],
  ["'", "&#39;"],
  ["<", "&lt;"],
  [">", "&gt;"],
] as const;

const htmlEscape = (s: string): string => replaceEach(s, htmlEscapes);

/** template.JSEscapeString's named escapes ('\\' first: the others add backslashes). */
const jsEscapes = [
  ["\\", "\\\\"],
  ["'", "\\'"],
  ['"', '\\"'],
  ["<", "\\u003C"],
  [">", "\\u003E"],
  ["&", "\\u0026"],
  ["=", "\\u003D"],
] as const;

/** What JSEscapeString may change beyond its named escapes: control characters and non-ASCII. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSEscapeString escapes exactly these.
const jsUnusual = /[\x00-\x1f]|[^\x00-\x7f]/gu;

/** template.JSEscapeString; control characters and non-ASCII, each looked at alone, paid per character. */
function jsEscape(s: string, charge: Charge): string {
  const named = replaceEach(s, jsEscapes);
  jsUnusual.lastIndex = 0;
  if (!jsUnusual.test(named)) return named;
  charge(costs.unusualChar * named.length);
  return named.replace(jsUnusual, (ch) => {
    const r = ch.codePointAt(0) as number;
    if (r < 0x20) return `\\u00${r.toString(16).toUpperCase().padStart(2, "0")}`;
    if (isPrint(r)) return ch;
    if (r >= 0xd800 && r <= 0xdfff) return "\uFFFD";
    return `\\u${r.toString(16).toUpperCase().padStart(4, "0")}`;
  });
}

/** What url.QueryEscape escapes and encodeURIComponent does not, and a space as `+`. */
const queryEscapes = [
  ["%20", "+"],
  ["!", "%21"],
  ["'", "%27"],
  ["(", "%28"],
  [")", "%29"],
  ["*", "%2A"],
] as const;

/** url.QueryEscape: encodeURIComponent's escapes (uppercase hex of the UTF-8 bytes), and the rest. */
function queryEscape(s: string): string {
  let escaped: string;
  try {
    escaped = encodeURIComponent(s);
  } catch {
    // A lone surrogate, which Go's strings cannot hold: its UTF-8 is U+FFFD's, as JSON decoding makes it.
    escaped = encodeURIComponent(Buffer.from(s, "utf8").toString("utf8"));
  }
  return replaceEach(escaped, queryEscapes);
}

type Kind = "invalid" | "bool" | "int" | "uint" | "float" | "complex" | "string";

function basicKind(v: Value): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number" || typeof v === "bigint") return "int";
  if (typeof v === "string") return "string";
  if (v instanceof GoUint) return "uint";
  if (v instanceof GoFloat) return "float";
  if (v instanceof GoComplex) return "complex";
  return "invalid";
}

const numeric = (v: Value): number | bigint =>
  typeof v === "number" || typeof v === "bigint"
    ? v
    : v instanceof GoUint || v instanceof GoFloat
      ? v.value
      : Number.NaN;

/** Two numbers of one kind equal: an int held as a bigint and one held as a number compare by value. */
const sameNumber = (x: number | bigint, y: number | bigint): boolean =>
  typeof x === typeof y ? x === y : !(x < y || x > y);

/** Two strings compared: paid by the shorter one's length (what a comparison reads at most). */
function chargeCompare(a: Value, b: Value, context: CallContext): void {
  if (typeof a === "string" && typeof b === "string") context.charge(Math.min(a.length, b.length));
}

function eq(arg1: Value, rest: Value[], context: CallContext): boolean {
  const a = unbox(arg1);
  if (rest.length === 0) throw new GoError("missing argument for comparison");
  const k1 = basicKind(a);
  for (const arg of rest) {
    const b = unbox(arg);
    const k2 = basicKind(b);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int"))
        truth = sameNumber(numeric(a), numeric(b));
      else if (a !== undefined && b !== undefined) throw new GoError("incompatible types for comparison");
    } else if (k1 === "complex") {
      const x = a as GoComplex;
      const y = b as GoComplex;
      truth = x.re === y.re && x.im === y.im;
    } else if (k1 === "bool" || k1 === "string") {
      chargeCompare(a, b, context);
      truth = a === b;
    } else if (k1 !== "invalid") {
      truth = sameNumber(numeric(a), numeric(b));
    } else if (a === undefined || b === undefined) {
      truth = a === b;
    } else {
      // Two maps or slices (never nil here: JSON decoding and the operator make none).
      const ka = Array.isArray(a) ? "slice" : "map";
      const kb = Array.isArray(b) ? "slice" : "map";
      const described = (v: GoValue) => built(formatValueS(v), context);
      if (ka !== kb)
        throw new GoError(
          `non-comparable types ${described(a as GoValue)}: ${typeName(a as GoValue)}, ${typeName(b as GoValue)}: ${built(formatValue(b as GoValue), context)}`,
        );
      throw new GoError(`non-comparable type ${described(b as GoValue)}: ${typeName(b as GoValue)}`);
    }
    if (truth) return true;
  }
  return false;
}

function lt(arg1: Value, arg2: Value, context: CallContext): boolean {
  const a = unbox(arg1);
  const k1 = basicKind(a);
  if (k1 === "invalid") throw new GoError("invalid type for comparison");
  const b = unbox(arg2);
  const k2 = basicKind(b);
  if (k2 === "invalid") throw new GoError("invalid type for comparison");
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return numeric(a) < numeric(b);
    throw new GoError("incompatible types for comparison");
  }
  if (k1 === "bool" || k1 === "complex") throw new GoError("invalid type for comparison");
  if (k1 === "string") {
    chargeCompare(a, b, context);
    return compareGoStrings(a as string, b as string) < 0;
  }
  return numeric(a) < numeric(b);
}

const le = (a: Value, b: Value, context: CallContext): boolean => lt(a, b, context) || eq(a, [b], context);

function length(item: Value, context: CallContext): number {
  if (item instanceof Boxed && item.value === null) throw new GoError("len of nil pointer");
  const v = unbox(item);
  if (v === undefined) throw new GoError("reflect: call of reflect.Value.Type on zero Value");
  if (typeof v === "string") {
    context.charge(v.length);
    return Buffer.byteLength(v, "utf8");
  }
  if (Array.isArray(v)) return v.length;
  if (isMap(v)) {
    if (!keysKnown(v)) context.charge(costs.listedKey * mapKeys(v).length);
    return mapKeys(v).length;
  }
  throw new GoError(`len of type ${typeName(v)}`);
}

function indexArg(index: Value, cap: number): number {
  let x: number | bigint;
  if (typeof index === "number" || typeof index === "bigint") x = index;
  else if (index instanceof GoUint) x = index.value;
  else if (index === undefined) throw new GoError("cannot index slice/array with nil");
  else throw new GoError(`cannot index slice/array with type ${typeName(index)}`);
  if (x < 0 || x > cap) throw new GoError(`index out of range: ${x}`);
  return Number(x);
}

/** Whether a string is ASCII (where byte and UTF-16 indexes agree), paid by its length. */
function isAscii(s: string, context: CallContext): boolean {
  context.charge(s.length);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is 0 to 0x7f, control characters included.
  return !/[^\x00-\x7f]/.test(s);
}

function index(args: Value[], context: CallContext): Value {
  let item: Value = unbox(args[0]);
  if (item === undefined) throw new GoError("index of untyped nil");
  for (let n = 1; n < args.length; n++) {
    const i = unbox(args[n]);
    if (item instanceof Boxed) {
      if (item.value === null) throw new GoError("index of nil pointer");
      item = item.value;
    }
    if (typeof item === "string" || Array.isArray(item)) {
      if (typeof item === "string" && !isAscii(item, context))
        throw new Unsupported("index of a non-ASCII string");
      const x = indexArg(i, item.length);
      if (x === item.length)
        throw new GoError(`reflect: ${typeof item === "string" ? "string" : "slice"} index out of range`);
      item =
        typeof item === "string"
          ? new GoUint(item.charCodeAt(x), "uint8")
          : item instanceof GoStrings
            ? item[x]
            : new Boxed(item[x] ?? null);
    } else if (isMap(item)) {
      if (i === undefined) throw new GoError("value is nil; should be of type string");
      if (typeof i !== "string") throw new GoError(`value has type ${typeName(i)}; should be string`);
      item = new Boxed(Object.hasOwn(item, i) ? (item[i] ?? null) : null);
    } else {
      throw new GoError(`can't index item of type ${typeName(item as GoValue)}`);
    }
  }
  return item;
}

function slice(args: Value[], context: CallContext): Value {
  const item = unbox(args[0]);
  if (item === undefined) throw new GoError("slice of untyped nil");
  const indexes = args.slice(1);
  if (indexes.length > 3) throw new GoError(`too many slice indexes: ${indexes.length}`);
  if (typeof item === "string") {
    if (indexes.length === 3) throw new GoError("cannot 3-index slice a string");
    if (!isAscii(item, context)) throw new Unsupported("slice of a non-ASCII string");
  } else if (Array.isArray(item)) {
    // The capacity of a JSON-decoded slice is not known here.
    throw new Unsupported("slice of a list");
  } else {
    throw new GoError(`can't slice item of type ${typeName(item)}`);
  }
  const idx = [0, item.length];
  // Go's slice passes its indexes on as they are: a boxed one (read from a map) is refused by type.
  indexes.forEach((v, i) => {
    idx[i] = indexArg(v, item.length);
  });
  const [from, to] = idx as [number, number];
  if (from > to) throw new GoError(`invalid slice index: ${from} > ${to}`);
  return item.slice(from, to);
}

/** An escaping function: its input read (a pass per special character), then its output paid for. */
const escaping =
  (escaped: (s: string, charge: Charge) => string) =>
  (args: Value[], context: CallContext): Value => {
    const input = evalArgs(args, context);
    context.charge(costs.escapedChar * input.length);
    return built(escaped(input, context.charge), context);
  };

/** The functions of the operator's templates: Go's built-ins (funcs.go, builtins()) and randBase62. */
export const builtins = ((): ReadonlyMap<string, Signature> => {
  type Fn = Signature["fn"];
  const fixed = (params: ParamType[], fn: Fn): Signature => ({ params, variadic: false, fn });
  const variadic = (params: ParamType[], fn: Fn): Signature => ({ params, variadic: true, fn });
  const printArgs = (args: Value[], context: CallContext) =>
    args.map((arg) => {
      chargePrinting(arg, context.charge);
      return toAny(arg);
    });
  return new Map<string, Signature>([
    // and/or short-circuit: the executor evaluates them itself.
    ["and", variadic(["value", "value"], () => undefined)],
    ["or", variadic(["value", "value"], () => undefined)],
    ["not", fixed(["value"], ([a]) => !isTrue(unbox(a)))],
    ["len", fixed(["value"], ([a], context) => length(a, context))],
    ["index", variadic(["value", "value"], index)],
    ["slice", variadic(["value", "value"], slice)],
    [
      "call",
      // The callee's name comes first (the executor puts it there, as Go does): functions are never values here.
      variadic(["value", "value"], ([name, fn]) => {
        const v = unbox(fn);
        if (v === undefined) throw new GoError("call of nil");
        throw new GoError(`non-function ${name as string} of type ${typeName(v)}`);
      }),
    ],
    ["html", variadic(["any"], escaping(htmlEscape))],
    ["js", variadic(["any"], escaping(jsEscape))],
    ["urlquery", variadic(["any"], escaping(queryEscape))],
    ["print", variadic(["any"], (args, context) => built(sprint(printArgs(args, context)), context))],
    ["println", variadic(["any"], (args, context) => built(sprintln(printArgs(args, context)), context))],
    [
      "printf",
      variadic(["string", "any"], ([format, ...args], context) => {
        context.charge(costs.formatChar * (format as string).length);
        return built(sprintf(format as string, printArgs(args, context), context.charge), context);
      }),
    ],
    ["eq", variadic(["value", "value"], ([a, ...rest], context) => eq(a, rest, context))],
    ["ne", fixed(["value", "value"], ([a, b], context) => !eq(a, [b], context))],
    ["lt", fixed(["value", "value"], ([a, b], context) => lt(a, b, context))],
    ["le", fixed(["value", "value"], ([a, b], context) => le(a, b, context))],
    ["gt", fixed(["value", "value"], ([a, b], context) => !le(a, b, context))],
    ["ge", fixed(["value", "value"], ([a, b], context) => !lt(a, b, context))],
    [
      "randBase62",
      fixed(["uint"], ([n], context) => {
        const length = (n as GoUint).value;
        context.charge(length);
        return context.randBase62(length);
      }),
    ],
  ]);
})();
