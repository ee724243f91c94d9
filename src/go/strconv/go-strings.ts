import { Buffer } from "node:buffer";

/**
 * Go's string literal rules as text/template/parse uses them: strconv.Unquote and UnquoteChar for
 * string, raw string and character constants, and fmt's %q and %#U for error messages.
 */

/** strconv's ErrSyntax, as `t.error(err)` prints it. */
export class GoSyntaxError extends Error {
  constructor() {
    super("invalid syntax");
  }
}

const simpleEscapes: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  "\\": 92,
  "'": 39,
  '"': 34,
};

const hexValue = (c: string | undefined): number => {
  if (c === undefined) return -1;
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
};

const maxRune = 0x10ffff;
const isSurrogate = (r: number) => r >= 0xd800 && r <= 0xdfff;

/**
 * strconv.UnquoteChar: decodes the first character or escape of `s` (quote is the enclosing quote
 * character); returns the code point and the rest. Throws GoSyntaxError where Go returns ErrSyntax.
 */
export function unquoteChar(s: string, quote: string): { value: number; tail: string } {
  const first = s.codePointAt(0);
  if (first === undefined) throw new GoSyntaxError();
  const c = String.fromCodePoint(first);
  if (c === quote && (quote === "'" || quote === '"')) throw new GoSyntaxError();
  if (c !== "\\") return { value: first, tail: s.slice(c.length) };
  if (s.length <= 1) throw new GoSyntaxError();
  const e = s[1] as string;
  let rest = s.slice(2);
  const simple = simpleEscapes[e];
  if (simple !== undefined) {
    if ((e === "'" || e === '"') && e !== quote) throw new GoSyntaxError();
    return { value: simple, tail: rest };
  }
  if (e === "x" || e === "u" || e === "U") {
    const n = e === "x" ? 2 : e === "u" ? 4 : 8;
    if (rest.length < n) throw new GoSyntaxError();
    let v = 0;
    for (let j = 0; j < n; j++) {
      const x = hexValue(rest[j]);
      if (x < 0) throw new GoSyntaxError();
      v = v * 16 + x;
    }
    rest = rest.slice(n);
    if (e === "x") return { value: v, tail: rest };
    if (v > maxRune || isSurrogate(v)) throw new GoSyntaxError();
    return { value: v, tail: rest };
  }
  if (e >= "0" && e <= "7") {
    let v = e.charCodeAt(0) - 48;
    if (rest.length < 2) throw new GoSyntaxError();
    for (let j = 0; j < 2; j++) {
      const x = (rest.charCodeAt(j) || 0) - 48;
      if (x < 0 || x > 7) throw new GoSyntaxError();
      v = v * 8 + x;
    }
    if (v > 255) throw new GoSyntaxError();
    return { value: v, tail: rest.slice(2) };
  }
  throw new GoSyntaxError();
}

/** strconv.Unquote for the two string forms text/template accepts (`"…"` and `` `…` ``). */
export function unquote(s: string): string {
  const quote = s[0];
  if (s.length < 2 || quote !== s[s.length - 1]) throw new GoSyntaxError();
  const body = s.slice(1, -1);
  if (quote === "`") {
    if (body.includes("`")) throw new GoSyntaxError();
    return body.replaceAll("\r", "");
  }
  if (quote !== '"' || body.includes("\n")) throw new GoSyntaxError();
  // Most strings have no escape: then only a quote inside refuses them (as unquoteChar would).
  if (!body.includes("\\")) {
    if (body.includes('"')) throw new GoSyntaxError();
    return body;
  }
  let out = "";
  let rest = body;
  let bytes: number[] = [];
  const flushBytes = () => {
    if (bytes.length > 0) out += Buffer.from(bytes).toString("utf8");
    bytes = [];
  };
  while (rest.length > 0) {
    const next = rest[1] ?? "";
    const escapedByte = rest[0] === "\\" && (next === "x" || (next >= "0" && next <= "7"));
    const { value, tail } = unquoteChar(rest, quote);
    rest = tail;
    if (escapedByte) bytes.push(value);
    else {
      flushBytes();
      out += String.fromCodePoint(value);
    }
  }
  flushBytes();
  return out;
}

/** Go's unicode.IsPrint (strconv.IsPrint): letters, marks, numbers, punctuation, symbols and ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
/** Each code point's answer once known (1 printable, 2 not): a Unicode class test costs ~100 ns. */
const printableKnown = new Uint8Array(maxRune + 1);
export function isPrint(r: number): boolean {
  if (r < 0 || r > maxRune) return false;
  let known = printableKnown[r];
  if (known === 0) {
    known = !isSurrogate(r) && printable.test(String.fromCodePoint(r)) ? 1 : 2;
    printableKnown[r] = known;
  }
  return known === 1;
}

/** strconv's appendEscapedRune: one code point inside `quote`, ASCII only (QuoteToASCII) or not. */
function escapeRune(r: number, quote: number, asciiOnly: boolean): string {
  if (r === quote || r === 92) return `\\${String.fromCharCode(r)}`;
  // A lone surrogate is U+FFFD in Go (its JSON decoder and its rune conversion both make it so).
  if (isSurrogate(r) || r > maxRune || r < 0) r = 0xfffd;
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) return String.fromCodePoint(r);
  switch (r) {
    case 7:
      return "\\a";
    case 8:
      return "\\b";
    case 12:
      return "\\f";
    case 10:
      return "\\n";
    case 13:
      return "\\r";
    case 9:
      return "\\t";
    case 11:
      return "\\v";
  }
  if (r < 0x20 || r === 0x7f) return `\\x${r.toString(16).padStart(2, "0")}`;
  if (r < 0x10000) return `\\u${r.toString(16).padStart(4, "0")}`;
  return `\\U${r.toString(16).padStart(8, "0")}`;
}

/**
 * fmt's %q (strconv.Quote, or QuoteToASCII with `asciiOnly`); with `precision`, %.Nq: the first N
 * characters only.
 */
export function goQuote(s: string, precision?: number, asciiOnly = false): string {
  // Printable ASCII, the common case, needs only its quotes and backslashes escaped.
  if ((precision === undefined || precision >= s.length) && /^[\x20-\x7e]*$/.test(s))
    return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  let out = '"';
  let n = 0;
  for (const ch of s) {
    if (precision !== undefined && n >= precision) break;
    out += escapeRune(ch.codePointAt(0) as number, 34, asciiOnly);
    n++;
  }
  return `${out}"`;
}

/** strconv.QuoteRune (or QuoteRuneToASCII): `'a'`, `'\\n'`, `'�'` for what is no valid code point. */
export const goQuoteRune = (r: number, asciiOnly: boolean): string => `'${escapeRune(r, 39, asciiOnly)}'`;

/** strconv.CanBackquote: no control character but tab, no backquote, no U+FEFF (a lone surrogate is Go's valid U+FFFD). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: CanBackquote refuses exactly these.
const notBackquotable = /[\x00-\x08\x0a-\x1f\x7f`\ufeff]/;
export const canBackquote = (s: string): boolean => !notBackquotable.test(s);

/** fmt's %#U: `U+0021 '!'` (the character only when printable). */
export function goUnicode(r: number): string {
  const hex = `U+${r.toString(16).toUpperCase().padStart(4, "0")}`;
  return isPrint(r) ? `${hex} '${String.fromCodePoint(r)}'` : hex;
}

/** A string's length in code points, as Go's utf8.RuneCountInString counts it (a lone surrogate is one U+FFFD). */
export function runeCount(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A surrogate pair is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}
