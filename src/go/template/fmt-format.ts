/**
 * Go's fmt/format.go: the formatter under every verb (padding, integers in every base, code points,
 * strings, their hex and quoted forms, floats), with its flags. Whatever a few characters of format
 * can make long (a width's padding, a precision's zeros or digits, a string's hex) is charged before
 * it is built; the caller charges the rest by the length of what it got.
 */
import { Buffer } from "node:buffer";
import { expansionDigits, type FloatFormat, formatFloatGo } from "../strconv/ftoa.js";
import { canBackquote, goQuote, goQuoteRune, isPrint, runeCount } from "../strconv/go-strings.js";
import { costs } from "./costs.js";

/** Charges the work of building a string of `units` characters before it is built (see costs.ts). */
export type Charge = (units: number) => void;

/** fmt's fmtFlags, width and precision (wid and prec are never negative). */
export interface Flags {
  widPresent: boolean;
  precPresent: boolean;
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid: number;
  prec: number;
}

export const clearFlags = (): Flags => ({
  widPresent: false,
  precPresent: false,
  minus: false,
  plus: false,
  sharp: false,
  space: false,
  zero: false,
  plusV: false,
  sharpV: false,
  wid: 0,
  prec: 0,
});

const maxRune = 0x10ffff;
const lowerHex = Buffer.from("0123456789abcdef", "latin1");
const upperHex = Buffer.from("0123456789ABCDEF", "latin1");
const runeError = 0xfffd;
const uint64Mask = (1n << 64n) - 1n;

/** The formatter: it appends to `out` as fmt appends to its buffer. */
export class Formatter {
  out = "";
  f: Flags = clearFlags();

  constructor(readonly charge: Charge) {}

  write(s: string): void {
    this.out += s;
  }

  /** writePadding: n bytes of padding, zeros only to the left. */
  writePadding(n: number): void {
    if (n <= 0) return;
    this.charge(n);
    this.out += (this.f.zero && !this.f.minus ? "0" : " ").repeat(n);
  }

  /** pad / padString: s padded to the width, left or right. */
  pad(s: string): void {
    if (!this.f.widPresent || this.f.wid === 0) {
      this.out += s;
      return;
    }
    const width = this.f.wid - runeCount(s);
    if (!this.f.minus) {
      this.writePadding(width);
      this.out += s;
    } else {
      this.out += s;
      this.writePadding(width);
    }
  }

  /** pad with the zero flag off (numbers that pad with zeros have done so already). */
  private padNoZero(s: string): void {
    const zero = this.f.zero;
    this.f.zero = false;
    this.pad(s);
    this.f.zero = zero;
  }

  fmtBoolean(v: boolean): void {
    this.pad(v ? "true" : "false");
  }

  /** fmtUnicode: `U+0078`, with # `U+0078 'x'`; u is the uint64 of the value. */
  fmtUnicode(u: bigint): void {
    const prec = this.f.precPresent && this.f.prec > 4 ? this.f.prec : 4;
    this.charge(prec);
    const digits = u.toString(16).toUpperCase().padStart(prec, "0");
    let s = `U+${digits}`;
    if (this.f.sharp && u <= BigInt(maxRune) && isPrint(Number(u)))
      s += ` '${String.fromCodePoint(Number(u))}'`;
    this.padNoZero(s);
  }

  /**
   * fmtInteger: `magnitude` and its sign (a uint64's is never negative), in a base, with precision
   * or zero padding as leading zeros, then the prefixes the flags ask for.
   */
  fmtInteger(value: bigint, base: 2 | 8 | 10 | 16, verb: string, upper: boolean): void {
    const negative = value < 0n;
    const u = negative ? -value : value;
    const f = this.f;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0n) {
        const zero = f.zero;
        f.zero = false;
        this.writePadding(f.wid);
        f.zero = zero;
        return;
      }
    } else if (f.zero && !f.minus && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let digits = u.toString(base);
    if (upper) digits = digits.toUpperCase();
    if (prec > digits.length) {
      this.charge(prec);
      digits = digits.padStart(prec, "0");
    }
    if (f.sharp) {
      if (base === 2) digits = `0b${digits}`;
      else if (base === 8 && digits[0] !== "0") digits = `0${digits}`;
      else if (base === 16) digits = `0${upper ? "X" : "x"}${digits}`;
    }
    if (verb === "O") digits = `0o${digits}`;
    if (negative) digits = `-${digits}`;
    else if (f.plus) digits = `+${digits}`;
    else if (f.space) digits = ` ${digits}`;
    this.padNoZero(digits);
  }

  /** truncateString: the first prec characters, found without building anything. */
  truncateString(s: string): string {
    if (!this.f.precPresent || this.f.prec >= s.length) return s;
    const n = this.f.prec;
    this.charge(n);
    let i = 0;
    for (let count = 0; count < n && i < s.length; count++) {
      const c = s.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
    return s.slice(0, i);
  }

  fmtS(s: string): void {
    this.pad(this.truncateString(s));
  }

  /** fmtSbx for a string: its UTF-8 bytes as hex, with `#` (0x) and ` ` (between bytes) flags. */
  fmtSx(s: string, upper: boolean): void {
    const f = this.f;
    let bytes = Buffer.from(s, "utf8");
    if (f.precPresent && f.prec < bytes.length) bytes = bytes.subarray(0, f.prec);
    const length = bytes.length;
    if (length === 0) {
      if (f.widPresent) this.writePadding(f.wid);
      return;
    }
    let width = 2 * length;
    if (f.space) {
      if (f.sharp) width *= 2;
      width += length - 1;
    } else if (f.sharp) width += 2;
    // Each byte read and encoded: paid per byte too, before.
    this.charge(width + 2 * length);
    if (f.widPresent && f.wid > width && !f.minus) this.writePadding(f.wid - width);
    // Written byte by byte into one buffer of the encoding's size (no string made per byte).
    const digits = upper ? upperHex : lowerHex;
    const x = upper ? 88 : 120;
    const encoded = Buffer.allocUnsafe(width);
    let k = 0;
    if (f.sharp && !f.space) {
      encoded[k++] = 48;
      encoded[k++] = x;
    }
    for (let i = 0; i < length; i++) {
      if (f.space) {
        if (i > 0) encoded[k++] = 32;
        if (f.sharp) {
          encoded[k++] = 48;
          encoded[k++] = x;
        }
      }
      const c = bytes[i] as number;
      encoded[k++] = digits[c >> 4] as number;
      encoded[k++] = digits[c & 15] as number;
    }
    this.out += encoded.toString("latin1");
    if (f.widPresent && f.wid > width && f.minus) this.writePadding(f.wid - width);
  }

  /** fmtQ: a quoted string, backquoted with # when it can be, ASCII only with +. */
  fmtQ(s: string): void {
    const t = this.truncateString(s);
    this.charge(costs.quotedChar * t.length);
    if (this.f.sharp && canBackquote(t)) {
      this.pad(`\`${t}\``);
      return;
    }
    this.pad(goQuote(t, undefined, this.f.plus));
  }

  /** fmtC: the code point (U+FFFD beyond Unicode); u is the uint64 of the value. */
  fmtC(u: bigint): void {
    this.pad(String.fromCodePoint(validRune(u)));
  }

  /** fmtQc: the quoted character constant. */
  fmtQc(u: bigint): void {
    this.pad(goQuoteRune(validRune(u), this.f.plus));
  }

  /** fmtFloat: strconv's formatting, then the sign, `#` and zero-padding rules fmt adds. */
  fmtFloat(v: number, verb: FloatFormat, defaultPrec: number): void {
    const f = this.f;
    const prec = f.precPresent ? f.prec : defaultPrec;
    // Beyond the digits the float has, a precision only adds zeros: each is paid for before, and so
    // is working out its exact expansion when a precision asks for one.
    this.charge(
      costs.printedNumber + Math.max(0, prec) + costs.expansionDigit * expansionDigits(v, verb, prec),
    );
    let num = recentFloat(v, verb, prec);
    num = num[0] === "-" || num[0] === "+" ? num : `+${num}`;
    if (f.space && num[0] === "+" && !f.plus) num = ` ${num.slice(1)}`;
    if (num[1] === "I" || num[1] === "N") {
      if (num[1] === "N" && !f.space && !f.plus) num = num.slice(1);
      this.padNoZero(num);
      return;
    }
    if (f.sharp && verb !== "b") num = sharpFloat(num, verb, prec);
    if (f.plus || num[0] !== "+") {
      if (f.zero && !f.minus && f.widPresent && f.wid > num.length) {
        this.out += num[0];
        this.writePadding(f.wid - num.length);
        this.out += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }
}

/**
 * The floats formatted last, with their texts: a template's loop prints the same values over and over
 * (`range 100000` of `println 2.5i` formats 0 and 2.5 each time), and strconv's shortest form costs
 * BigInt arithmetic each time (Go's own is cheap: a generated template of 100,000 such iterations
 * spent 60 ms of its 114 there). Short texts only (`recentFloatLength`), so what is kept stays small;
 * formatFloatGo is pure, and the work is charged before, whether a text is kept or not.
 */
const recentFloats: { v: number; verb: FloatFormat; prec: number; text: string }[] = [];
const recentFloatsKept = 4;
const recentFloatLength = 64;
let recentFloatNext = 0;

/** formatFloatGo(v, verb, prec), from the floats formatted last when it is one of them. */
function recentFloat(v: number, verb: FloatFormat, prec: number): string {
  for (const recent of recentFloats)
    if (recent.prec === prec && recent.verb === verb && Object.is(recent.v, v)) return recent.text;
  const text = formatFloatGo(v, verb, prec);
  if (text.length <= recentFloatLength) {
    recentFloats[recentFloatNext] = { v, verb, prec, text };
    recentFloatNext = (recentFloatNext + 1) % recentFloatsKept;
  }
  return text;
}

/** The code point fmtC and fmtQc print: U+FFFD for what is beyond Unicode or a surrogate. */
function validRune(u: bigint): number {
  if (u > BigInt(maxRune)) return runeError;
  const r = Number(u);
  return r >= 0xd800 && r <= 0xdfff ? runeError : r;
}

/** fmt's `#` for floats: a decimal point always, and trailing zeros kept up to the precision. */
function sharpFloat(signed: string, verb: string, prec: number): string {
  let digits = 0;
  // Go's list: lower-case x only (%#X keeps no trailing zeros).
  if (verb === "g" || verb === "G" || verb === "x") digits = prec === -1 ? 6 : prec;
  let num = signed;
  let tail = "";
  let hasDecimalPoint = false;
  let sawNonzeroDigit = false;
  for (let i = 1; i < num.length; i++) {
    const c = num[i] as string;
    if (c === ".") {
      hasDecimalPoint = true;
      continue;
    }
    if (c === "p" || c === "P" || ((c === "e" || c === "E") && verb !== "x" && verb !== "X")) {
      tail = num.slice(i);
      num = num.slice(0, i);
      break;
    }
    if (c !== "0") sawNonzeroDigit = true;
    if (sawNonzeroDigit) digits--;
  }
  if (!hasDecimalPoint) {
    if (num.length === 2 && num[1] === "0") digits--;
    num += ".";
  }
  if (digits > 0) num += "0".repeat(digits);
  return num + tail;
}

/** The uint64 a Go integer converts to (two's complement for a negative int). */
export const asUint64 = (v: bigint): bigint => v & uint64Mask;
