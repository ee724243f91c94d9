/**
 * Go's fmt as text/template's print, println, printf and value printing use it, for the values in
 * values.ts. printf covers the verbs templates use (%v %s %d %q %t %x %X %%, width, `-`, `0`, `+`,
 * precision for %s/%v/%q) and fmt's error forms (`%!d(string=x)`, `%!d(MISSING)`, `%!(EXTRA ...)`,
 * `%!(NOVERB)`); anything else throws Unsupported rather than guess.
 */
import { costs } from "./costs.js";
import { goQuote } from "./go-strings.js";
import {
  Boxed,
  GoComplex,
  GoFloat,
  GoStrings,
  GoUint,
  type GoValue,
  isMap,
  sortedKeys,
  typeName,
  Unsupported,
} from "./values.js";

/** An argument as fmt receives it (an `any`): a Go value, or nil. */
export type FmtArg = GoValue | null;

/** strconv.FormatFloat(f, 'g', -1, 64), as %v prints a float64 (shortest digits; exponent when < -4 or >= 6). */
export function formatFloat(f: number, plus = false): string {
  const sign = plus && (f > 0 || (f === 0 && !Object.is(f, -0))) ? "+" : "";
  if (Number.isNaN(f)) return plus ? "+NaN" : "NaN";
  if (f === Number.POSITIVE_INFINITY) return "+Inf";
  if (f === Number.NEGATIVE_INFINITY) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : `${sign}0`;
  const [mantissa, exponentText] = f.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const digits = Math.abs(exponent) < 10 ? `0${Math.abs(exponent)}` : String(Math.abs(exponent));
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${digits}`;
  }
  // Within that range JS's own shortest form is positional, as Go's is.
  return sign + String(f);
}

function formatComplex(c: GoComplex): string {
  return `(${formatFloat(c.re)}${formatFloat(c.im, true)}i)`;
}

/**
 * A float's or complex number's %v, once per value: shortest-digit formatting costs most of a
 * microsecond, and a template prints the same constant or config value again and again.
 */
const formatted = new WeakMap<GoFloat | GoComplex, string>();
function formattedNumber(v: GoFloat | GoComplex): string {
  let text = formatted.get(v);
  if (text === undefined) {
    text = v instanceof GoFloat ? formatFloat(v.value) : formatComplex(v);
    formatted.set(v, text);
  }
  return text;
}

/** fmt's %v of one argument. */
export function formatValue(v: FmtArg | Boxed): string {
  if (v instanceof Boxed) return formatValue(v.value);
  if (v === null) return "<nil>";
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
  }
  if (v instanceof GoFloat || v instanceof GoComplex) return formattedNumber(v);
  if (v instanceof GoUint) return String(v.value);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(" ")}]`;
  if (isMap(v))
    return `map[${sortedKeys(v)
      .map((k) => `${k}:${formatValue(v[k] ?? null)}`)
      .join(" ")}]`;
  throw new Unsupported("printing this value");
}

/** fmt's %s of a value: composites element by element, non-strings as `%!s(int=1)`. */
function formatS(v: FmtArg | Boxed): string {
  if (v instanceof Boxed) return formatS(v.value);
  if (v === null) return "<nil>";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return `[${v.map(formatS).join(" ")}]`;
  if (isMap(v))
    return `map[${sortedKeys(v)
      .map((k) => `${k}:${formatS(v[k] ?? null)}`)
      .join(" ")}]`;
  return `%!s(${typeName(v)}=${formatValue(v)})`;
}

/** fmt's %s of a reflect.Value (Go's messages format values with %s). */
export const formatValueS = (v: GoValue): string => formatS(v);

const isStringArg = (a: FmtArg): boolean => typeof a === "string";

/** fmt.Sprint: spaces between operands when neither is a string. */
export function sprint(args: readonly FmtArg[]): string {
  let out = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as FmtArg;
    if (i > 0 && !isStringArg(a) && !isStringArg(args[i - 1] as FmtArg)) out += " ";
    out += formatValue(a);
  }
  return out;
}

/** fmt.Sprintln: spaces between all operands, and a newline. */
export const sprintln = (args: readonly FmtArg[]): string => `${args.map(formatValue).join(" ")}\n`;

/** Charges the work of building a string of `units` characters before it is built (see costs.ts). */
export type Charge = (units: number) => void;
const free: Charge = () => {};

interface Spec {
  charge: Charge;
  minus: boolean;
  plus: boolean;
  zero: boolean;
  width: number | undefined;
  precision: number | undefined;
}

const runeCount = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

function pad(s: string, spec: Spec, zeroAllowed: boolean): string {
  if (spec.width === undefined) return s;
  const n = runeCount(s);
  if (n >= spec.width) return s;
  const fill = spec.width - n;
  // A width is the one place a few characters of format build a long string: paid before it is built.
  spec.charge(fill);
  if (spec.minus) return s + " ".repeat(fill);
  if (spec.zero && zeroAllowed) {
    const signed = s[0] === "-" || s[0] === "+";
    return signed ? s[0] + "0".repeat(fill) + s.slice(1) : "0".repeat(fill) + s;
  }
  return " ".repeat(fill) + s;
}

function truncateRunes(s: string, precision: number | undefined): string {
  if (precision === undefined) return s;
  let out = "";
  let n = 0;
  for (const ch of s) {
    if (n++ >= precision) break;
    out += ch;
  }
  return out;
}

const plainSpec = (spec: Spec) =>
  !spec.minus && !spec.plus && !spec.zero && spec.width === undefined && spec.precision === undefined;

function badVerb(verb: string, arg: FmtArg, spec: Spec): string {
  if (!plainSpec(spec)) throw new Unsupported(`%!${verb} with flags`);
  if (arg === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(arg)}=${formatValue(arg)})`;
}

const isComposite = (a: FmtArg) => Array.isArray(a) || isMap(a);

function formatInteger(v: number | bigint, spec: Spec, radix: number, upper: boolean): string {
  if (spec.precision !== undefined) throw new Unsupported("integer precision");
  let digits = (v < 0 ? -v : v).toString(radix);
  if (upper) digits = digits.toUpperCase();
  const sign = v < 0 ? "-" : spec.plus ? "+" : "";
  return pad(sign + digits, spec, true);
}

function hexOfString(s: string, upper: boolean, spec: Spec): string {
  if (spec.precision !== undefined || spec.plus || spec.zero) throw new Unsupported("%x flags");
  let hex = Buffer.from(s, "utf8").toString("hex");
  if (upper) hex = hex.toUpperCase();
  return pad(hex, spec, false);
}

/**
 * strconv.FormatFloat(x, 'f', precision, 64): the exact binary value rounded to `precision` decimals,
 * a tie to even (JavaScript's toFixed rounds a tie up). Very large or long results are not modelled.
 */
function formatFixed(x: number, precision: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf";
  if (Math.abs(x) >= 1e21 || precision > 20) throw new Unsupported("%f of a large value or precision");
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const magnitude = Math.abs(x);
  let fixed = magnitude.toFixed(precision);
  // A tie when the exact expansion continues with 5 and then only zeros: round to even instead of up.
  const long = magnitude.toFixed(Math.min(100, precision + 60));
  const rest = long.slice(long.length - (Math.min(100, precision + 60) - precision));
  if (/^50*$/.test(rest)) {
    const down = long.slice(0, long.length - rest.length).replace(/\.$/, "");
    const lastDigit = Number(down.replace(".", "").slice(-1));
    if (lastDigit % 2 === 0) fixed = down;
  }
  return `${sign}${fixed}`;
}

function formatOne(verb: string, arg: FmtArg, spec: Spec): string {
  // fmt prints a slice element by element, each with the verb and its flags: `[%!d(string=a)]`.
  if (arg instanceof GoStrings) return `[${arg.map((s) => formatOne(verb, s, spec)).join(" ")}]`;
  if (spec.plus && verb !== "d") throw new Unsupported(`%+${verb}`);
  if (spec.zero && verb !== "d" && verb !== "x" && verb !== "X") throw new Unsupported(`%0${verb}`);
  if (verb === "v") {
    if (spec.zero) throw new Unsupported("%0v");
    if ((typeof arg === "number" || arg instanceof GoFloat) && spec.precision !== undefined)
      throw new Unsupported("%.Nv");
    // fmt applies a width or precision to each element of a map or list, not to the whole.
    if (arg !== null && isComposite(arg) && (spec.width !== undefined || spec.precision !== undefined))
      throw new Unsupported("%v of a composite with a width or precision");
    return pad(
      truncateRunes(formatValue(arg), typeof arg === "string" ? spec.precision : undefined),
      spec,
      false,
    );
  }
  if (arg !== null && isComposite(arg)) throw new Unsupported(`%${verb} of a composite`);
  switch (verb) {
    case "f":
    case "F":
      if (arg instanceof GoFloat) return pad(formatFixed(arg.value, spec.precision ?? 6), spec, false);
      if (typeof arg === "number" || typeof arg === "string" || typeof arg === "boolean" || arg === null)
        return badVerb(verb, arg, spec);
      throw new Unsupported(`%${verb} of this value`);
    case "s":
      if (typeof arg === "string") return pad(truncateRunes(arg, spec.precision), spec, false);
      return badVerb(verb, arg, spec);
    case "q":
      if (typeof arg === "string") {
        spec.charge(costs.quotedChar * arg.length);
        return pad(goQuote(arg, spec.precision), spec, false);
      }
      if (typeof arg === "number" || arg instanceof GoUint) throw new Unsupported("%q of an integer");
      return badVerb(verb, arg, spec);
    case "d":
      if (typeof arg === "number" || typeof arg === "bigint") return formatInteger(arg, spec, 10, false);
      if (arg instanceof GoUint) return formatInteger(arg.value, spec, 10, false);
      return badVerb(verb, arg, spec);
    case "t":
      if (typeof arg === "boolean") return pad(arg ? "true" : "false", spec, false);
      return badVerb(verb, arg, spec);
    case "x":
    case "X":
      if (typeof arg === "number" || typeof arg === "bigint")
        return formatInteger(arg, spec, 16, verb === "X");
      if (arg instanceof GoUint) return formatInteger(arg.value, spec, 16, verb === "X");
      if (typeof arg === "string") return hexOfString(arg, verb === "X", spec);
      if (typeof arg === "boolean" || arg === null) return badVerb(verb, arg, spec);
      throw new Unsupported(`%${verb} of a float`);
  }
  throw new Unsupported(`the verb %${verb}`);
}

/**
 * fmt.Sprintf for the verbs described above. `charge` is told of the padding a width adds before it
 * is made; the caller pays for the rest (the format read, the text built) by their lengths.
 */
export function sprintf(format: string, args: readonly FmtArg[], charge: Charge = free): string {
  let out = "";
  let argNum = 0;
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf("%", i);
    if (percent < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, percent);
    i = percent + 1;
    const spec: Spec = {
      charge,
      minus: false,
      plus: false,
      zero: false,
      width: undefined,
      precision: undefined,
    };
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === "-") {
        spec.minus = true;
        spec.zero = false;
      } else if (c === "+") spec.plus = true;
      else if (c === "0") spec.zero = !spec.minus;
      else if (c === "#" || c === " ") throw new Unsupported(`the flag ${c}`);
      else break;
    }
    if (format[i] === "[" || format[i] === "*") throw new Unsupported("argument indexes and * widths");
    const width = /^\d+/.exec(format.slice(i, i + 8));
    if (width) {
      if (width[0].length > 6) throw new Unsupported("a large width");
      spec.width = Number(width[0]);
      i += width[0].length;
    }
    if (format[i] === ".") {
      i++;
      if (format[i] === "[" || format[i] === "*") throw new Unsupported("argument indexes and * precisions");
      const precision = /^\d*/.exec(format.slice(i, i + 8)) as RegExpExecArray;
      if (precision[0].length > 6) throw new Unsupported("a large precision");
      spec.precision = Number(precision[0] || "0");
      i += precision[0].length;
    }
    if (i >= format.length) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) as number);
    i += verb.length;
    if (verb === "%") {
      if (!plainSpec(spec)) throw new Unsupported("%% with flags");
      out += "%";
      continue;
    }
    if (argNum >= args.length) {
      if (!"vsdqtxX".includes(verb)) throw new Unsupported(`the verb %${verb}`);
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatOne(verb, args[argNum++] as FmtArg, spec);
  }
  if (argNum < args.length) {
    out += "%!(EXTRA ";
    out += args
      .slice(argNum)
      .map((a) => (a === null ? "<nil>" : `${typeName(a)}=${formatValue(a)}`))
      .join(", ");
    out += ")";
  }
  return out;
}
