/**
 * What Go's encoding/json makes of a string decoded into `any` (`json.Unmarshal([]byte(s), &v)`):
 * the Forkspacer operator does this to every rendered template, keeps the decoded value when there
 * is no error, and the string otherwise (api/v1/module_types.go, renderInterface).
 *
 * "text" means Unmarshal fails, so the string stays as rendered. Go fails where JavaScript's
 * JSON.parse would not: a number beyond float64 (`1e400`, anywhere in the value) and nesting deeper
 * than 10000 (encoding/json's scanner limit).
 */
export type JsonKind = "text" | "number" | "boolean" | "null" | "string" | "array" | "object";

/** encoding/json's maxNestingDepth. */
const maxJsonDepth = 10000;

const space = 0x20;
const tab = 0x09;
const lineFeed = 0x0a;
const carriageReturn = 0x0d;
const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const colon = 0x3a;
const minus = 0x2d;
const plus = 0x2b;
const dot = 0x2e;
const zero = 0x30;
const nine = 0x39;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const openBrace = 0x7b;
const closeBrace = 0x7d;

const isDigit = (c: number) => c >= zero && c <= nine;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** The first index at or after `i` that is not JSON whitespace (Go's isSpace: space, tab, CR, LF). */
function skipSpace(s: string, i: number): number {
  for (let c = s.charCodeAt(i); c === space || c === tab || c === lineFeed || c === carriageReturn; ) {
    c = s.charCodeAt(++i);
  }
  return i;
}

/** The index after the string literal opening at `i`, or -1 when it is not valid JSON. */
function scanString(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === quote) return i + 1;
    if (c < space) return -1;
    if (c === backslash) {
      const e = s.charCodeAt(++i);
      if (e === 0x75 /* u */) {
        if (!(isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2)))) return -1;
        if (!(isHex(s.charCodeAt(i + 3)) && isHex(s.charCodeAt(i + 4)))) return -1;
        i += 4;
      } else if (
        e !== quote &&
        e !== backslash &&
        e !== 0x2f /* / */ &&
        e !== 0x62 /* b */ &&
        e !== 0x66 /* f */ &&
        e !== 0x6e /* n */ &&
        e !== 0x72 /* r */ &&
        e !== 0x74 /* t */
      ) {
        return -1;
      }
    }
  }
  return -1;
}

/**
 * The index after the number opening at `i`, or -1 when it is not a JSON number or is one Go's
 * strconv.ParseFloat refuses (beyond float64: it rounds to an infinity; underflow to 0 is accepted).
 */
function scanNumber(s: string, i: number): number {
  const start = i;
  if (s.charCodeAt(i) === minus) i++;
  const first = s.charCodeAt(i);
  if (first === zero) i++;
  else if (isDigit(first)) while (isDigit(s.charCodeAt(++i)));
  else return -1;
  if (s.charCodeAt(i) === dot) {
    if (!isDigit(s.charCodeAt(++i))) return -1;
    while (isDigit(s.charCodeAt(++i)));
  }
  let exponent = false;
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    exponent = true;
    const sign = s.charCodeAt(++i);
    if (sign === plus || sign === minus) i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(++i)));
  }
  // Without an exponent only more than 308 digits can reach beyond float64's largest finite value.
  if ((exponent || i - start > 308) && !Number.isFinite(Number(s.slice(start, i)))) return -1;
  return i;
}

/** The index after `word` when `s` has it at `i`, or -1. */
const scanWord = (s: string, i: number, word: string): number =>
  s.startsWith(word, i) ? i + word.length : -1;

/**
 * Whether `s` is one JSON value, surrounded by whitespace, that Go's Unmarshal accepts: the grammar
 * JSON.parse and Go's scanner (checkValid) share, numbers within float64, nesting up to 10000. One
 * pass, no exception: most rendered texts ("redis-cache-main", "21.2.7") fail at their first
 * characters, where JSON.parse in try/catch would build an exception with a stack trace.
 */
function goDecodes(s: string, start: number): boolean {
  // Open containers, innermost last: true for an object, false for an array.
  const open: boolean[] = [];
  let i = start;
  value: for (;;) {
    i = skipSpace(s, i);
    const c = s.charCodeAt(i);
    if (c === openBrace || c === openBracket) {
      if (open.length === maxJsonDepth) return false;
      const object = c === openBrace;
      open.push(object);
      i = skipSpace(s, i + 1);
      if (s.charCodeAt(i) === (object ? closeBrace : closeBracket)) {
        open.pop();
        i++;
      } else if (object) {
        i = objectKey(s, i);
        if (i < 0) return false;
        continue;
      } else continue;
    } else {
      if (c === quote) i = scanString(s, i);
      else if (c === minus || isDigit(c)) i = scanNumber(s, i);
      else if (c === 0x74) i = scanWord(s, i, "true");
      else if (c === 0x66) i = scanWord(s, i, "false");
      else if (c === 0x6e) i = scanWord(s, i, "null");
      else return false;
      if (i < 0) return false;
    }
    // After a value: a comma, the end of its container, or the end of the text.
    for (;;) {
      i = skipSpace(s, i);
      if (open.length === 0) return i === s.length;
      const object = open[open.length - 1] as boolean;
      const d = s.charCodeAt(i);
      if (d === comma) {
        i++;
        if (object) {
          i = objectKey(s, skipSpace(s, i));
          if (i < 0) return false;
        }
        continue value;
      }
      if (d !== (object ? closeBrace : closeBracket)) return false;
      open.pop();
      i++;
    }
  }
}

/** The index after `"key":` at `i` (whitespace before the colon allowed), or -1. */
function objectKey(s: string, i: number): number {
  if (s.charCodeAt(i) !== quote) return -1;
  i = scanString(s, i);
  if (i < 0) return -1;
  i = skipSpace(s, i);
  return s.charCodeAt(i) === colon ? i + 1 : -1;
}

export function jsonKind(rendered: string): JsonKind {
  const start = skipSpace(rendered, 0);
  const c = rendered.charCodeAt(start);
  let kind: JsonKind;
  if (c === quote) kind = "string";
  else if (c === minus || isDigit(c)) kind = "number";
  else if (c === 0x74 || c === 0x66) kind = "boolean";
  else if (c === 0x6e) kind = "null";
  else if (c === openBracket) kind = "array";
  else if (c === openBrace) kind = "object";
  else return "text";
  return goDecodes(rendered, start) ? kind : "text";
}
