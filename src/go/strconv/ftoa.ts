/**
 * strconv.FormatFloat(v, fmt, prec, 64) for every format fmt's verbs reach (`b e E f g G x X`), from
 * the float's exact value: its binary digits for %b and %x, its exact decimal expansion (a BigInt,
 * at most 767 significant digits) rounded as strconv's decimal.Round rounds (half to even only on an
 * exact tie) for a given precision, and JavaScript's shortest round-trip digits (the same digits Go's
 * shortest formatting picks) for precision -1. The caller charges the output's length before: a
 * precision of 999,999 appends zeros past the expansion, it computes no more digits.
 */

/** The decimal digits of a float's magnitude: value = 0.d × 10^dp, `d` without leading or trailing zeros. */
interface Digits {
  d: string;
  dp: number;
}

const view = new DataView(new ArrayBuffer(8));

/** The float's sign, mantissa and binary exponent as strconv's genericFtoa reads them (exp unbiased). */
function bitsOf(v: number): { neg: boolean; mant: bigint; exp: number; special: boolean } {
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const neg = bits >> 63n !== 0n;
  let exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (exp === 0x7ff) return { neg, mant, exp, special: true };
  if (exp === 0) exp++;
  else mant |= 1n << 52n;
  return { neg, mant, exp: exp - 1023, special: false };
}

/** 5^k for the exponents met (at most 1,074 of them, 5^1074 is 2,494 bits): each worked out once. */
const powersOf5 = new Map<number, bigint>();
function powerOf5(k: number): bigint {
  let p = powersOf5.get(k);
  if (p === undefined) {
    p = 5n ** BigInt(k);
    powersOf5.set(k, p);
  }
  return p;
}

/** The exact decimal expansion of mant × 2^(exp-52). */
function exactDigits(mant: bigint, exp: number): Digits {
  if (mant === 0n) return { d: "", dp: 0 };
  const e2 = exp - 52;
  let text: string;
  let dp: number;
  if (e2 >= 0) {
    text = (mant << BigInt(e2)).toString();
    dp = text.length;
  } else {
    text = (mant * powerOf5(-e2)).toString();
    dp = text.length + e2;
  }
  let end = text.length;
  while (end > 0 && text[end - 1] === "0") end--;
  return { d: text.slice(0, end), dp };
}

/** The shortest digits that read back as the float (JavaScript's and Go's shortest agree). */
function shortestDigits(abs: number): Digits {
  if (abs === 0) return { d: "", dp: 0 };
  const [mantissa, exponent] = abs.toExponential().split("e") as [string, string];
  return { d: mantissa.replace(".", ""), dp: Number(exponent) + 1 };
}

/** strconv's decimal.Round(nd) on an exact expansion: up when past half, to even on an exact tie. */
function round(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd) - 48;
  const up =
    next === 5 && nd + 1 === x.d.length ? nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1 : next >= 5;
  if (!up) {
    let end = nd;
    while (end > 0 && x.d[end - 1] === "0") end--;
    return { d: x.d.slice(0, end), dp: x.d.length === 0 || end > 0 ? x.dp : 0 };
  }
  for (let i = nd - 1; i >= 0; i--) {
    const c = x.d.charCodeAt(i);
    if (c < 57) return { d: x.d.slice(0, i) + String.fromCharCode(c + 1), dp: x.dp };
  }
  return { d: "1", dp: x.dp + 1 };
}

function fmtE(neg: boolean, x: Digits, prec: number, verb: string): string {
  let out = neg ? "-" : "";
  out += x.d.length > 0 ? x.d[0] : "0";
  if (prec > 0) {
    const m = Math.min(x.d.length, prec + 1);
    out += `.${x.d.slice(1, m)}${"0".repeat(Math.max(0, prec + 1 - Math.max(m, 1)))}`;
  }
  let exp = x.d.length === 0 ? 0 : x.dp - 1;
  const sign = exp < 0 ? "-" : "+";
  exp = Math.abs(exp);
  return `${out}${verb}${sign}${exp < 10 ? `0${exp}` : exp}`;
}

function fmtF(neg: boolean, x: Digits, prec: number): string {
  let out = neg ? "-" : "";
  if (x.dp > 0) {
    const m = Math.min(x.d.length, x.dp);
    out += x.d.slice(0, m) + "0".repeat(x.dp - m);
  } else out += "0";
  if (prec > 0) {
    // Digits j = dp + i - 1 for i in 1..prec: those inside d, zeros around them.
    const lead = Math.min(prec, Math.max(0, -x.dp));
    const from = Math.max(0, x.dp);
    const inside = x.d.slice(from, from + prec - lead);
    out += `.${"0".repeat(lead)}${inside}${"0".repeat(prec - lead - inside.length)}`;
  }
  return out;
}

function fmtB(neg: boolean, mant: bigint, exp: number): string {
  const e = exp - 52;
  return `${neg ? "-" : ""}${mant}p${e >= 0 ? "+" : ""}${e}`;
}

const mask64 = (1n << 64n) - 1n;

function fmtX(prec: number, verb: "x" | "X", neg: boolean, mant0: bigint, exp0: number): string {
  let mant = mant0;
  let exp = mant === 0n ? 0 : exp0;
  mant = (mant << 8n) & mask64; // the leading 1 at bit 60
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant = (mant << 1n) & mask64;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant = (mant << (60n - shift)) & mask64;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = verb === "X" ? "0123456789ABCDEF" : "0123456789abcdef";
  let out = `${neg ? "-" : ""}0${verb}${(mant >> 60n) & 1n}`;
  mant = (mant << 4n) & mask64;
  if (prec < 0 && mant !== 0n) {
    out += ".";
    while (mant !== 0n) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & mask64;
    }
  } else if (prec > 0) {
    out += ".";
    for (let i = 0; i < prec && mant !== 0n; i++) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & mask64;
    }
    out = out.padEnd(out.indexOf(".") + 1 + prec, "0");
  }
  const sign = exp < 0 ? "-" : "+";
  exp = Math.abs(exp);
  return `${out}${verb === "X" ? "P" : "p"}${sign}${exp < 10 ? `0${exp}` : exp}`;
}

export type FloatFormat = "b" | "e" | "E" | "f" | "g" | "G" | "x" | "X";

/**
 * How many decimal digits formatFloatGo works out for v with an explicit precision: its exact
 * expansion (up to 767 significant digits for the smallest floats, 309 integer digits for the
 * largest), made with BigInt arithmetic whose cost grows with them. Shortest and binary forms: none.
 */
export function expansionDigits(v: number, verb: FloatFormat, prec: number): number {
  if (prec < 0 || verb === "b" || verb === "x" || verb === "X" || v === 0 || !Number.isFinite(v)) return 0;
  const e2 = bitsOf(v).exp - 52;
  return e2 >= 0 ? Math.ceil((e2 + 53) * Math.LOG10E * Math.LN2) : Math.ceil(-e2 * 0.69897) + 17;
}

/** strconv.FormatFloat(v, verb, prec, 64). */
export function formatFloatGo(v: number, verb: FloatFormat, prec: number): string {
  const { neg, mant, exp, special } = bitsOf(v);
  if (special) return mant !== 0n ? "NaN" : neg ? "-Inf" : "+Inf";
  if (verb === "b") return fmtB(neg, mant, exp);
  if (verb === "x" || verb === "X") return fmtX(prec, verb, neg, mant, exp);
  const shortest = prec < 0;
  let digits: Digits;
  if (shortest) {
    digits = shortestDigits(Math.abs(v));
    if (mant !== 0n) {
      if (verb === "e" || verb === "E") prec = Math.max(digits.d.length - 1, 0);
      else if (verb === "f") prec = Math.max(digits.d.length - digits.dp, 0);
      else prec = digits.d.length;
    }
  } else {
    digits = exactDigits(mant, exp);
    if (mant !== 0n) {
      if (verb === "e" || verb === "E") digits = round(digits, prec + 1);
      else if (verb === "f") digits = round(digits, digits.dp + prec);
      else {
        if (prec === 0) prec = 1;
        digits = round(digits, prec);
      }
    }
  }
  if (verb === "e" || verb === "E") return fmtE(neg, digits, prec, verb);
  if (verb === "f") return fmtF(neg, digits, prec);
  let eprec = prec;
  const nd = digits.d.length;
  if (eprec > nd && nd >= digits.dp) eprec = nd;
  if (shortest) eprec = 6;
  const e = digits.dp - 1;
  if (e < -4 || e >= eprec) {
    if (prec > nd) prec = nd;
    return fmtE(neg, digits, prec - 1, verb === "g" ? "e" : "E");
  }
  if (prec > digits.dp) prec = nd;
  return fmtF(neg, digits, Math.max(prec - digits.dp, 0));
}
