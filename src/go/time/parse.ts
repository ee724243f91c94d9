import { Buffer } from "node:buffer";

/**
 * Go's `time.Parse(time.RFC3339, value)` as far as whether it fails and with which message: how
 * metav1.Time reads a timestamp (`metadata.creationTimestamp`, an embedded resource's too), and the
 * text the API server answers with when it cannot (`parsing time "yesterday" as
 * "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`). Go's general layout parser,
 * followed through that one layout; it works on bytes, as Go does.
 */
const layout = "2006-01-02T15:04:05Z07:00";

type Element = "year" | "month" | "day" | "hour" | "minute" | "second" | "zone";

/** The layout's pieces: the literal text before each element, and the element's own text. */
const pieces: { prefix: string; element: Element; text: string }[] = [
  { prefix: "", element: "year", text: "2006" },
  { prefix: "-", element: "month", text: "01" },
  { prefix: "-", element: "day", text: "02" },
  { prefix: "T", element: "hour", text: "15" },
  { prefix: ":", element: "minute", text: "04" },
  { prefix: ":", element: "second", text: "05" },
  { prefix: "", element: "zone", text: "Z07:00" },
];

class Bad extends Error {}

/** The error time.Parse(RFC3339) returns, or undefined when it parses. */
export function goTimeParseError(value: string): string | undefined {
  // Go indexes bytes: each byte one character of a latin1 string.
  const whole = Buffer.from(value, "utf8").toString("latin1");
  const parseError = (layoutElement: string, valueElement: string, message = "") =>
    message === ""
      ? `parsing time ${quote(whole)} as ${quote(layout)}: cannot parse ${quote(valueElement)} as ${quote(layoutElement)}`
      : `parsing time ${quote(whole)}${message}`;
  let rest = whole;
  let year = 0;
  let month = -1;
  let day = -1;
  for (const piece of pieces) {
    if (!rest.startsWith(piece.prefix)) {
      // skip() consumes the prefix's matching characters before it fails.
      let matched = 0;
      while (matched < piece.prefix.length && rest[matched] === piece.prefix[matched]) matched++;
      return parseError(piece.prefix, rest.slice(matched));
    }
    rest = rest.slice(piece.prefix.length);
    const hold = rest;
    let range = "";
    try {
      switch (piece.element) {
        case "year": {
          if (rest.length < 4 || !isDigit(rest, 0)) throw new Bad();
          year = atoi(rest.slice(0, 4));
          rest = rest.slice(4);
          break;
        }
        case "month": {
          [month, rest] = getnum(rest, true);
          if (month <= 0 || month > 12) range = "month";
          break;
        }
        case "day":
          [day, rest] = getnum(rest, true);
          break;
        case "hour": {
          let hour: number;
          [hour, rest] = getnum(rest, false);
          if (hour < 0 || hour >= 24) range = "hour";
          break;
        }
        case "minute": {
          let minute: number;
          [minute, rest] = getnum(rest, true);
          if (minute < 0 || minute >= 60) range = "minute";
          break;
        }
        case "second": {
          let second: number;
          [second, rest] = getnum(rest, true);
          if (second < 0 || second >= 60) {
            range = "second";
            break;
          }
          // A fractional second the layout does not have is taken all the same.
          if (rest.length >= 2 && (rest[0] === "." || rest[0] === ",") && isDigit(rest, 1)) {
            let n = 2;
            while (n < rest.length && isDigit(rest, n)) n++;
            rest = rest.slice(n);
          }
          break;
        }
        case "zone": {
          if (rest.length >= 1 && rest[0] === "Z") {
            rest = rest.slice(1);
            break;
          }
          if (rest.length < 6 || rest[3] !== ":") throw new Bad();
          const sign = rest[0];
          // Go reads both numbers (the second only if the first reads), then judges their range,
          // then the sign: a range error wins over a bad number or sign.
          let bad = false;
          let hours = 0;
          let minutes = 0;
          try {
            [hours] = getnum(rest.slice(1, 3), true);
            [minutes] = getnum(rest.slice(4, 6), true);
          } catch (error) {
            if (!(error instanceof Bad)) throw error;
            bad = true;
          }
          rest = rest.slice(6);
          if (hours > 24) range = "time zone offset hour";
          if (minutes > 60) range = "time zone offset minute";
          if (bad || (sign !== "+" && sign !== "-")) throw new Bad();
          break;
        }
      }
    } catch (error) {
      if (!(error instanceof Bad)) throw error;
      if (range !== "") return parseError(piece.text, rest, `: ${range} out of range`);
      return parseError(piece.text, hold);
    }
    if (range !== "") return parseError(piece.text, rest, `: ${range} out of range`);
  }
  if (rest.length > 0) return parseError("", rest, `: extra text: ${quote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) return parseError("", rest, ": day out of range");
  return undefined;
}

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return i < s.length && c >= 48 && c <= 57;
}

/** getnum: one or two digits (`fixed`: exactly two). */
function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigit(s, 0)) throw new Bad();
  if (!isDigit(s, 1)) {
    if (fixed) throw new Bad();
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

/** atoi of the year's four bytes: an optional sign, then digits only. */
function atoi(s: string): number {
  const match = /^([-+]?)(\d+)$/.exec(s);
  if (!match) throw new Bad();
  return (match[1] === "-" ? -1 : 1) * Number(match[2]);
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 31;
}

/** The time package's quote: ASCII as it is (`"` and `\` escaped), every other byte as \xNN. */
function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += c === 34 || c === 92 ? `\\${s[i]}` : s[i];
  }
  return `${out}"`;
}
