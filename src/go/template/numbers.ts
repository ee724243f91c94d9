/**
 * Number constants as text/template/parse's newNumber reads them (node.go): strconv.ParseUint and
 * ParseInt with base 0 (prefixes 0x, 0o, 0b, a leading 0 for octal, underscores between digits),
 * ParseFloat (decimal and hexadecimal), imaginary and complex constants, and character constants.
 */
import { goQuote, unquoteChar } from "../strconv/go-strings.js";

export interface GoNumber {
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int?: bigint;
  uint?: bigint;
  float?: number;
  complex?: [number, number];
}

export class NumberError extends Error {}

const maxUint64 = (1n << 64n) - 1n;
const minInt64 = -(1n << 63n);
const maxInt64 = (1n << 63n) - 1n;

/** strconv's underscoreOK: underscores only between digits (a base prefix counts as a digit). */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1] as string)) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i] as string;
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** strconv.ParseUint(s, 0, 64); undefined where Go returns an error. */
function parseUint(s0: string): bigint | undefined {
  if (s0 === "") return undefined;
  let s = s0;
  let base = 10n;
  if (s[0] === "0") {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && (p === "b" || p === "o" || p === "x")) {
      base = p === "b" ? 2n : p === "o" ? 8n : 16n;
      s = s.slice(2);
    } else {
      base = 8n;
      s = s.slice(1);
    }
  }
  let n = 0n;
  let underscores = false;
  for (const c of s) {
    if (c === "_") {
      underscores = true;
      continue;
    }
    const d = Number.parseInt(c, 36);
    if (Number.isNaN(d) || BigInt(d) >= base) return undefined;
    n = n * base + BigInt(d);
    if (n > maxUint64) return undefined;
  }
  if (underscores && !underscoreOK(s0)) return undefined;
  return n;
}

/** strconv.ParseInt(s, 0, 64). */
function parseInt64(s: string): bigint | undefined {
  if (s === "") return undefined;
  const neg = s[0] === "-";
  const un = parseUint(s[0] === "+" || s[0] === "-" ? s.slice(1) : s);
  if (un === undefined) return undefined;
  const n = neg ? -un : un;
  return n < minInt64 || n > maxInt64 ? undefined : n;
}

const decimalFloat = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?$/;
const hexFloat = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/;

/** strconv.ParseFloat(s, 64) for the forms the lexer lets through; undefined on error (overflow included). */
function parseFloat64(s: string): number | undefined {
  let value: number;
  const hex = hexFloat.exec(s);
  if (hex) {
    const [, sign, whole = "", frac = "", exp = ""] = hex;
    const digits = (whole + frac).replaceAll("_", "");
    if (digits === "") return undefined;
    const mantissa = BigInt(`0x${digits}`);
    const e = Number(exp.replaceAll("_", "")) - 4 * frac.replaceAll("_", "").length;
    value = Number(mantissa) * 2 ** e;
    if (sign === "-") value = -value;
  } else if (decimalFloat.test(s) && /[0-9]/.test(s)) {
    value = Number(s.replaceAll("_", ""));
  } else return undefined;
  if (s.includes("_") && !underscoreOK(s)) return undefined;
  return Number.isFinite(value) ? value : undefined;
}

const exactInt = (f: number) => Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63;
const exactUint = (f: number) => Number.isInteger(f) && f >= 0 && f < 2 ** 64;

function fromFloat(n: GoNumber, f: number): void {
  n.isFloat = true;
  n.float = f;
  n.isInt = exactInt(f);
  if (n.isInt) n.int = BigInt(f);
  n.isUint = exactUint(f);
  if (n.isUint) n.uint = BigInt(f);
}

function simplifyComplex(n: GoNumber, re: number, im: number): void {
  n.isComplex = true;
  n.complex = [re, im];
  if (im === 0) fromFloat(n, re);
}

/** Where the lexer's second scanNumber began in a complex constant such as `1e-3+2i`. */
function complexSplit(text: string): number {
  const unsigned = text[0] === "+" || text[0] === "-" ? text.slice(1) : text;
  const exponentMarkers = /^0[xX]/.test(unsigned) ? "pP" : "eE";
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if ((c === "+" || c === "-") && !exponentMarkers.includes(text[i - 1] as string)) return i;
  }
  return -1;
}

/** newNumber: the number a token denotes, or the error Go reports for it. */
/** A decimal integer of at most 15 digits, no sign but `-`, no leading zero: exact as a float64. */
const smallDecimal = /^-?(?:0|[1-9][0-9]{0,14})$/;

export function newNumber(text: string, kind: "number" | "char" | "complex"): GoNumber {
  if (kind === "number" && smallDecimal.test(text)) {
    // The common case, without strconv's digit-by-digit parse: an int, a float, and a uint unless negative.
    const value = Number(text);
    const int = BigInt(value);
    const unsigned = value >= 0 || text === "-0";
    return {
      isInt: true,
      isUint: unsigned,
      isFloat: true,
      isComplex: false,
      int,
      ...(unsigned ? { uint: value === 0 ? 0n : int } : {}),
      float: value === 0 ? 0 : value,
    };
  }
  const n: GoNumber = { isInt: false, isUint: false, isFloat: false, isComplex: false };
  if (kind === "char") {
    const { value, tail } = unquoteChar(text.slice(1), text[0] as string);
    if (tail !== "'") throw new NumberError(`malformed character constant: ${text}`);
    return {
      isInt: true,
      isUint: true,
      isFloat: true,
      isComplex: false,
      int: BigInt(value),
      uint: BigInt(value),
      float: value,
    };
  }
  if (kind === "complex") {
    const at = complexSplit(text);
    const re = at > 0 ? parseFloat64(text.slice(0, at)) : undefined;
    const im = at > 0 ? parseFloat64(text.slice(at, -1)) : undefined;
    if (re === undefined || im === undefined) throw new NumberError("syntax error scanning complex number");
    simplifyComplex(n, re, im);
    return n;
  }
  if (text.endsWith("i")) {
    const f = parseFloat64(text.slice(0, -1));
    if (f !== undefined) {
      simplifyComplex(n, 0, f);
      return n;
    }
  }
  const u = parseUint(text);
  if (u !== undefined) {
    n.isUint = true;
    n.uint = u;
  }
  const i = parseInt64(text);
  if (i !== undefined) {
    n.isInt = true;
    n.int = i;
    if (i === 0n) {
      n.isUint = true; // in case of -0.
      n.uint = u ?? 0n;
    }
  }
  if (n.isInt) {
    n.isFloat = true;
    n.float = Number(n.int);
  } else if (n.isUint) {
    n.isFloat = true;
    n.float = Number(n.uint);
  } else {
    const f = parseFloat64(text);
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) throw new NumberError(`integer overflow: ${goQuote(text)}`);
      n.isFloat = true;
      n.float = f;
      if (exactInt(f)) {
        n.isInt = true;
        n.int = BigInt(f);
      }
      if (exactUint(f)) {
        n.isUint = true;
        n.uint = BigInt(f);
      }
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) throw new NumberError(`illegal number syntax: ${goQuote(text)}`);
  return n;
}
