/**
 * Go's fmt as text/template's print, println, printf and value printing use it (fmt/print.go), for
 * the values in values.ts: every verb (`v` with `+` and `#`, `T`, `t`, `b c d o O q x X U`,
 * `b e E f F g G x X` of floats and complex numbers, `s q x X` of strings), every flag, widths and
 * precisions (`*` and explicit argument indexes `%[2]d` included), and fmt's error forms
 * (`%!d(string=x)`, `%!d(MISSING)`, `%!d(BADINDEX)`, `%!(BADWIDTH)`, `%!(BADPREC)`, `%!(NOVERB)`,
 * `%!(EXTRA ...)`). Only `%p` (an address) and `%w` of a map or list throw Unsupported. What a
 * width or precision makes long is charged before it is built (fmt-format.ts).
 */
import { asUint64, type Charge, clearFlags, Formatter } from "./fmt-format.js";
import {
  Boxed,
  GoComplex,
  GoFloat,
  GoStrings,
  GoUint,
  type GoValue,
  sortedKeys,
  typeName,
  Unsupported,
} from "./values.js";

export type { Charge } from "./fmt-format.js";

/** An argument as fmt receives it (an `any`): a Go value, or nil. */
export type FmtArg = GoValue | null;

const free: Charge = () => {};

const isComposite = (v: GoValue): v is GoMapOrList =>
  typeof v === "object" && !(v instanceof GoFloat || v instanceof GoComplex || v instanceof GoUint);
type GoMapOrList = Exclude<GoValue, string | number | bigint | boolean | GoFloat | GoComplex | GoUint>;

/**
 * The Go integer a value holds, as fmt reads it: an int (signed) or a uint8 or uint (unsigned).
 * The one place fmt reads integers.
 */
function integerOf(v: GoValue): { value: bigint; signed: boolean } | undefined {
  if (typeof v === "number") return { value: BigInt(v), signed: true };
  if (typeof v === "bigint") return { value: v, signed: true };
  if (v instanceof GoUint) return { value: BigInt(v.value), signed: false };
  return undefined;
}

/** fmt's tooLarge: widths and precisions beyond a million are refused. */
const tooLarge = (x: number): boolean => x > 1e6 || x < -1e6;

/** fmt's pp: one Sprintf, Sprint or value printed. */
class Printer {
  readonly fmt: Formatter;
  private reordered = false;
  private goodArgNum = true;

  constructor(charge: Charge) {
    this.fmt = new Formatter(charge);
  }

  get out(): string {
    return this.fmt.out;
  }

  printArg(arg: FmtArg, verb: string): void {
    if (arg === null) {
      if (verb === "T" || verb === "v") this.fmt.pad("<nil>");
      else this.badVerb(verb, null);
      return;
    }
    if (verb === "T") {
      this.fmt.fmtS(typeName(arg));
      return;
    }
    if (verb === "p" || verb === "w") {
      // %p prints an address; %w of a map or list reaches fmt's method handling with stale state.
      if (isComposite(arg)) throw new Unsupported(`%${verb} of a map or list`);
      this.badVerb(verb, arg);
      return;
    }
    this.printValue(arg, verb, 0);
  }

  private printValue(v: GoValue, verb: string, depth: number): void {
    switch (typeof v) {
      case "string":
        this.fmtString(v, verb);
        return;
      case "boolean":
        if (verb === "t" || verb === "v") this.fmt.fmtBoolean(v);
        else this.badVerb(verb, v);
        return;
    }
    const integer = integerOf(v);
    if (integer) this.fmtInteger(integer.value, integer.signed, verb, v);
    else if (v instanceof GoFloat) this.fmtFloat(v.value, verb, v);
    else if (v instanceof GoComplex) this.fmtComplex(v, verb);
    else if (Array.isArray(v)) this.printList(v, verb, depth);
    else if (isComposite(v)) this.printMap(v, verb, depth);
  }

  /** An element of a map or list: an interface, nil or holding a value. */
  private printElement(e: GoValue | null, verb: string, depth: number): void {
    if (e === null) this.fmt.write(this.fmt.f.sharpV ? "interface {}(nil)" : "<nil>");
    else this.printValue(e, verb, depth + 1);
  }

  private printList(list: (GoValue | null)[], verb: string, depth: number): void {
    const sharpV = this.fmt.f.sharpV;
    if (sharpV) {
      this.fmt.write(typeName(list));
      if (list instanceof GoStrings && list.nil) {
        this.fmt.write("(nil)");
        return;
      }
    }
    this.fmt.write(sharpV ? "{" : "[");
    for (let i = 0; i < list.length; i++) {
      if (i > 0) this.fmt.write(sharpV ? ", " : " ");
      this.printElement(list[i] ?? null, verb, depth);
    }
    this.fmt.write(sharpV ? "}" : "]");
  }

  private printMap(map: { [key: string]: GoValue | null }, verb: string, depth: number): void {
    const sharpV = this.fmt.f.sharpV;
    this.fmt.write(sharpV ? `${typeName(map)}{` : "map[");
    sortedKeys(map).forEach((key, i) => {
      if (i > 0) this.fmt.write(sharpV ? ", " : " ");
      this.printValue(key, verb, depth + 1);
      this.fmt.write(":");
      this.printElement(map[key] ?? null, verb, depth);
    });
    this.fmt.write(sharpV ? "}" : "]");
  }

  /** `%!verb(type=value)`, the value printed with %v and the directive's flags; `%!verb(<nil>)`. */
  private badVerb(verb: string, v: GoValue | null): void {
    this.fmt.write(`%!${verb}(`);
    if (v === null) this.fmt.write("<nil>");
    else {
      this.fmt.write(`${typeName(v)}=`);
      this.printArg(v, "v");
    }
    this.fmt.write(")");
  }

  private fmtString(v: string, verb: string): void {
    switch (verb) {
      case "v":
        if (this.fmt.f.sharpV) this.fmt.fmtQ(v);
        else this.fmt.fmtS(v);
        return;
      case "s":
        this.fmt.fmtS(v);
        return;
      case "x":
      case "X":
        this.fmt.fmtSx(v, verb === "X");
        return;
      case "q":
        this.fmt.fmtQ(v);
        return;
    }
    this.badVerb(verb, v);
  }

  private fmtInteger(value: bigint, signed: boolean, verb: string, v: GoValue): void {
    const f = this.fmt;
    switch (verb) {
      case "v":
        if (f.f.sharpV && !signed) {
          // fmt0x64: %#v of an unsigned integer is its hex with 0x.
          const sharp = f.f.sharp;
          f.f.sharp = true;
          f.fmtInteger(value, 16, verb, false);
          f.f.sharp = sharp;
        } else f.fmtInteger(value, 10, verb, false);
        return;
      case "d":
        f.fmtInteger(value, 10, verb, false);
        return;
      case "b":
        f.fmtInteger(value, 2, verb, false);
        return;
      case "o":
      case "O":
        f.fmtInteger(value, 8, verb, false);
        return;
      case "x":
      case "X":
        f.fmtInteger(value, 16, verb, verb === "X");
        return;
      case "c":
        f.fmtC(asUint64(value));
        return;
      case "q":
        f.fmtQc(asUint64(value));
        return;
      case "U":
        f.fmtUnicode(asUint64(value));
        return;
    }
    this.badVerb(verb, v);
  }

  private fmtFloat(x: number, verb: string, v: GoValue): void {
    switch (verb) {
      case "v":
        this.fmt.fmtFloat(x, "g", -1);
        return;
      case "b":
      case "g":
      case "G":
      case "x":
      case "X":
        this.fmt.fmtFloat(x, verb, -1);
        return;
      case "f":
      case "e":
      case "E":
        this.fmt.fmtFloat(x, verb, 6);
        return;
      case "F":
        this.fmt.fmtFloat(x, "f", 6);
        return;
    }
    this.badVerb(verb, v);
  }

  private fmtComplex(c: GoComplex, verb: string): void {
    if (!"vbgGxXfFeE".includes(verb)) {
      this.badVerb(verb, c);
      return;
    }
    const plus = this.fmt.f.plus;
    this.fmt.write("(");
    this.fmtFloat(c.re, verb, c);
    // The imaginary part always has a sign.
    this.fmt.f.plus = true;
    this.fmtFloat(c.im, verb, c);
    this.fmt.write("i)");
    this.fmt.f.plus = plus;
  }

  /** doPrintf. */
  doPrintf(format: string, a: readonly FmtArg[]): void {
    const end = format.length;
    const f = this.fmt;
    let argNum = 0;
    let afterIndex = false;
    this.reordered = false;
    let i = 0;
    formatLoop: while (i < end) {
      this.goodArgNum = true;
      const lasti = i;
      const percent = format.indexOf("%", i);
      i = percent < 0 ? end : percent;
      if (i > lasti) f.write(format.slice(lasti, i));
      if (i >= end) break;
      i++;
      f.f = clearFlags();
      simpleFormat: for (; i < end; i++) {
        const c = format[i] as string;
        switch (c) {
          case "#":
            f.f.sharp = true;
            break;
          case "0":
            f.f.zero = true;
            break;
          case "+":
            f.f.plus = true;
            break;
          case "-":
            f.f.minus = true;
            break;
          case " ":
            f.f.space = true;
            break;
          default:
            // The fast path of a lower-case verb with flags only.
            if (c >= "a" && c <= "z" && argNum < a.length) {
              if (c === "v" || c === "w") this.verbV();
              this.printArg(a[argNum] as FmtArg, c);
              argNum++;
              i++;
              continue formatLoop;
            }
            break simpleFormat;
        }
      }
      [argNum, i, afterIndex] = this.argNumber(argNum, format, i, a.length);
      if (i < end && format[i] === "*") {
        i++;
        let present: boolean;
        [f.f.wid, present, argNum] = intFromArg(a, argNum);
        f.f.widPresent = present;
        if (!present) f.write("%!(BADWIDTH)");
        if (f.f.wid < 0) {
          f.f.wid = -f.f.wid;
          f.f.minus = true;
          f.f.zero = false;
        }
        afterIndex = false;
      } else {
        [f.f.wid, f.f.widPresent, i] = parsenum(format, i, end);
        if (afterIndex && f.f.widPresent) this.goodArgNum = false;
      }
      if (i + 1 < end && format[i] === ".") {
        i++;
        if (afterIndex) this.goodArgNum = false;
        [argNum, i, afterIndex] = this.argNumber(argNum, format, i, a.length);
        if (i < end && format[i] === "*") {
          i++;
          [f.f.prec, f.f.precPresent, argNum] = intFromArg(a, argNum);
          if (f.f.prec < 0) {
            f.f.prec = 0;
            f.f.precPresent = false;
          }
          if (!f.f.precPresent) f.write("%!(BADPREC)");
          afterIndex = false;
        } else {
          [f.f.prec, f.f.precPresent, i] = parsenum(format, i, end);
          if (!f.f.precPresent) {
            f.f.prec = 0;
            f.f.precPresent = true;
          }
        }
      }
      if (!afterIndex) [argNum, i, afterIndex] = this.argNumber(argNum, format, i, a.length);
      if (i >= end) {
        f.write("%!(NOVERB)");
        break;
      }
      const verb = String.fromCodePoint(format.codePointAt(i) as number);
      i += verb.length;
      if (verb === "%") f.write("%");
      else if (!this.goodArgNum) f.write(`%!${verb}(BADINDEX)`);
      else if (argNum >= a.length) f.write(`%!${verb}(MISSING)`);
      else {
        if (verb === "v" || verb === "w") this.verbV();
        this.printArg(a[argNum] as FmtArg, verb);
        argNum++;
      }
    }
    if (!this.reordered && argNum < a.length) {
      f.f = clearFlags();
      f.write("%!(EXTRA ");
      a.slice(argNum).forEach((arg, n) => {
        if (n > 0) f.write(", ");
        if (arg === null) f.write("<nil>");
        else {
          f.write(`${typeName(arg)}=`);
          this.printArg(arg, "v");
        }
      });
      f.write(")");
    }
  }

  /** %#v and %+v are flagless formats of their own: sharp and plus move to sharpV and plusV. */
  private verbV(): void {
    const flags = this.fmt.f;
    flags.sharpV = flags.sharp;
    flags.sharp = false;
    flags.plusV = flags.plus;
    flags.plus = false;
  }

  /** argNumber: an explicit `[n]` at i, if any. */
  private argNumber(argNum: number, format: string, i: number, numArgs: number): [number, number, boolean] {
    if (format.length <= i || format[i] !== "[") return [argNum, i, false];
    this.reordered = true;
    const [index, wid, ok] = parseArgNumber(format, i);
    if (ok && index >= 0 && index < numArgs) return [index, i + wid, true];
    this.goodArgNum = false;
    return [argNum, i + wid, ok];
  }
}

/** parsenum: a decimal number at start, refused (and the rest of the format with it) past a million. */
function parsenum(s: string, start: number, end: number): [number, boolean, number] {
  if (start >= end) return [0, false, end];
  let num = 0;
  let isnum = false;
  let i = start;
  for (; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    if (tooLarge(num)) return [0, false, end];
    num = num * 10 + d;
    isnum = true;
  }
  return [num, isnum, i];
}

/** parseArgNumber: `[n]` at `at`: its zero-based index, its length, and whether it is one. */
function parseArgNumber(format: string, at: number): [number, number, boolean] {
  if (format.length - at < 3) return [0, 1, false];
  for (let i = at + 1; i < format.length; i++) {
    if (format[i] === "]") {
      const [width, ok, newi] = parsenum(format, at + 1, i);
      if (!ok || newi !== i) return [0, i - at + 1, false];
      return [width - 1, i - at + 1, true];
    }
  }
  return [0, 1, false];
}

/** intFromArg: a `*` width or precision from an int argument. */
function intFromArg(a: readonly FmtArg[], argNum: number): [number, boolean, number] {
  if (argNum >= a.length) return [0, false, argNum];
  const arg = a[argNum] as FmtArg;
  const integer = arg === null ? undefined : integerOf(arg);
  let num = 0;
  let isInt = false;
  if (integer && (integer.signed || integer.value <= BigInt(Number.MAX_SAFE_INTEGER))) {
    num = Number(integer.value);
    isInt = true;
  }
  if (tooLarge(num)) return [0, false, argNum + 1];
  return [num, isInt, argNum + 1];
}

/** fmt.Sprintf; `charge` is told of what widths and precisions build before it is built. */
export function sprintf(format: string, args: readonly FmtArg[], charge: Charge = free): string {
  const p = new Printer(charge);
  p.doPrintf(format, args);
  return p.out;
}

/** fmt.Sprint (doPrint): spaces between operands when neither is a string. */
export function sprint(args: readonly FmtArg[], charge: Charge = free): string {
  let out = "";
  let prevString = false;
  for (let n = 0; n < args.length; n++) {
    const arg = args[n] as FmtArg;
    const isString = typeof arg === "string";
    if (n > 0 && !isString && !prevString) out += " ";
    out += formatValue(arg, charge);
    prevString = isString;
  }
  return out;
}

/** fmt.Sprintln: spaces between all operands, and a newline. */
export const sprintln = (args: readonly FmtArg[], charge: Charge = free): string =>
  `${args.map((a) => formatValue(a, charge)).join(" ")}\n`;

/** fmt's %v of one argument (an interface value read out of a container is printed as what it holds). */
export function formatValue(v: FmtArg | Boxed, charge: Charge = free): string {
  if (v instanceof Boxed) return formatValue(v.value, charge);
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
  }
  const p = new Printer(charge);
  p.printArg(v, "v");
  return p.out;
}

/** fmt's %s of a value (Go's messages format values with %s). */
export const formatValueS = (v: GoValue): string => sprintf("%s", [v]);
