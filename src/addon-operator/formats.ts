import { isIP } from "node:net";
import { domainToASCII } from "node:url";

/**
 * go-openapi strfmt.Default's 26 formats (v0.26.2, `default.go`, `date.go`, `time.go`, `duration.go`,
 * `bson.go`, `ulid.go`), each accepting what the Go parser behind it accepts: net.ParseIP, net.ParseCIDR,
 * net.ParseMAC, url.ParseRequestURI, net/mail, google/uuid, oklog/ulid, base64.StdEncoding, time.Parse.
 * Names are looked up with dashes removed (`date-time` is `datetime`); unknown formats pass, as in Go.
 */
const formats: Record<string, (value: string) => boolean> = {
  uri: isRequestUri,
  email: isEmail,
  hostname: isHostname,
  ipv4: (value) => isGoIP(value) && value.includes("."),
  ipv6: (value) => isGoIP(value) && value.includes(":"),
  cidr: isCidr,
  mac: isMac,
  uuid: (value) => uuidVersion(value) !== undefined,
  uuid3: (value) => uuidVersion(value) === 3,
  uuid4: (value) => uuidVersion(value) === 4,
  uuid5: (value) => uuidVersion(value) === 5,
  uuid7: (value) => uuidVersion(value) === 7,
  isbn: (value) => isIsbn10(value) || isIsbn13(value),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: isCreditCard,
  ssn: (value) => value.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(value),
  hexcolor: (value) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value),
  rgbcolor: (value) => {
    const byte = "\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*";
    return new RegExp(`^rgb\\(${byte},${byte},${byte}\\)$`).test(value);
  },
  byte: isBase64,
  password: () => true,
  date: isDate,
  datetime: isDateTime,
  duration: isDuration,
  bsonobjectid: (value) => /^[0-9a-fA-F]{24}$/.test(value),
  ulid: (value) => /^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$/.test(value),
};

/** The 26 format names strfmt.Default registers (the spec counts 25 but lists all 26). */
export const knownFormats = Object.keys(formats);

/** False only when the format is known and the value does not have it. */
export function matchesFormat(format: string, value: string): boolean {
  const check = formats[format.replaceAll("-", "")];
  return check ? check(value) : true;
}

/** net.ParseIP: dotted IPv4 without leading zeros, or IPv6 (no zone). */
function isGoIP(value: string): boolean {
  if (isIPv4(value)) return true;
  if (value.includes("%") || isIP(value) !== 6) return false;
  const embedded = /:(\d+\.\d+\.\d+\.\d+)$/.exec(value);
  return !embedded?.[1] || isIPv4(embedded[1]);
}

function isIPv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 && parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
}

function isCidr(value: string): boolean {
  const slash = value.indexOf("/");
  if (slash < 0) return false;
  const address = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (!/^\d+$/.test(bits)) return false;
  if (isIPv4(address)) return Number(bits) <= 32;
  return !address.includes("%") && isIP(address) === 6 && isGoIP(address) && Number(bits) <= 128;
}

/** net.ParseMAC: 6, 8 or 20 octets as `xx:xx…`, `xx-xx…` or `xxxx.xxxx…`. */
function isMac(value: string): boolean {
  const sizes = [6, 8, 20];
  if (value.length < 14) return false;
  const separator = value.charAt(2);
  if (separator === ":" || separator === "-") {
    const groups = value.split(separator);
    return sizes.includes(groups.length) && groups.every((group) => /^[0-9a-fA-F]{2}$/.test(group));
  }
  const groups = value.split(".");
  return (
    value.charAt(4) === "." &&
    sizes.includes(groups.length * 2) &&
    groups.every((group) => /^[0-9a-fA-F]{4}$/.test(group))
  );
}

/** google/uuid Parse: 36 characters, `{…}`, `urn:uuid:…` or 32 hex digits; the version nibble. */
function uuidVersion(value: string): number | undefined {
  let hex: string;
  if (value.length === 36 || value.length === 38 || value.length === 45) {
    let body = value;
    if (value.length === 45) {
      if (value.slice(0, 9).toLowerCase() !== "urn:uuid:") return undefined;
      body = value.slice(9);
    } else if (value.length === 38) {
      if (!value.startsWith("{") || !value.endsWith("}")) return undefined;
      body = value.slice(1, -1);
    }
    if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(body))
      return undefined;
    hex = body.replaceAll("-", "");
  } else if (value.length === 32 && /^[0-9a-fA-F]{32}$/.test(value)) hex = value;
  else return undefined;
  return Number.parseInt(hex.charAt(12), 16);
}

const digitsOf = (value: string) => value.replace(/[\s-]+/g, "");

function isIsbn10(value: string): boolean {
  const digits = digitsOf(value);
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(digits.charAt(i));
  sum += 10 * (digits.charAt(9) === "X" ? 10 : Number(digits.charAt(9)));
  return sum % 11 === 0;
}

function isIsbn13(value: string): boolean {
  const digits = digitsOf(value);
  if (!/^[0-9]{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(digits.charAt(i));
  return Number(digits.charAt(12)) === (10 - (sum % 10)) % 10;
}

function isCreditCard(value: string): boolean {
  const digits = digitsOf(value);
  const card =
    /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
  if (!card.test(digits)) return false;
  // Luhn, as strfmt computes it on the number parsed as an int64 (leading zeros do not count).
  const number = BigInt(digits).toString();
  let sum = Number(number.slice(-1));
  const rest = number.slice(0, -1);
  for (let i = 0; i < rest.length; i++) {
    let digit = Number(rest.charAt(rest.length - 1 - i));
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0 && BigInt(digits) < 2n ** 63n;
}

/** base64.StdEncoding.DecodeString: padded, `\r` and `\n` ignored. */
function isBase64(value: string): boolean {
  const text = value.replace(/[\r\n]/g, "");
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
}

/** time.Parse("2006-01-02"): a real calendar day. */
function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** strfmt.IsDateTime: a date, then (after the first `t`, any case) a time of day with a zone. */
function isDateTime(value: string): boolean {
  if (value.length < 4) return false;
  const parts = value.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0] ?? "")) return false;
  const match = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(
    parts[1] ?? "",
  );
  return match !== null && (match[1] ?? "") <= "23" && (match[2] ?? "") <= "59" && (match[3] ?? "") <= "59";
}

const durationUnits: Record<string, number> = {};
for (const [nanos, names] of [
  [1, "ns nano nanosecond nanoseconds nanos"],
  [1e3, "us µs μs micro micros microsecond microseconds"],
  [1e6, "ms milli millis millisecond milliseconds"],
  [1e9, "s sec secs second seconds"],
  [60e9, "m min mins minute minutes"],
  [3600e9, "h hr hrs hour hours"],
  [86400e9, "d day days"],
  [604800e9, "w wk wks week weeks"],
] as const) {
  for (const name of names.split(" ")) durationUnits[name] = nanos;
}

/** strfmt.ParseDuration: `[+-]` then numbers each followed by a unit from strfmt's table, within int64 nanoseconds. */
function isDuration(value: string): boolean {
  let rest = value.replace(/^[-+]/, "").trimStart();
  if (rest === "0") return true;
  if (rest === "") return false;
  let total = 0;
  while (rest !== "") {
    rest = rest.trimStart();
    const match = /^(\d*)(?:\.(\d*))?\s*([^\d.\s]+)/.exec(rest);
    if (!match || (match[1] === "" && !match[2])) return false;
    const unit = durationUnits[match[3] ?? ""];
    if (unit === undefined) return false;
    total += Number(`${match[1] || "0"}.${match[2] || "0"}`) * unit;
    rest = rest.slice(match[0].length);
  }
  return total < 2 ** 63;
}

/** url.ParseRequestURI: an absolute URI or an absolute path; host, port and escapes checked. */
function isRequestUri(value: string): boolean {
  // Control characters are refused anywhere (Go's stringContainsCTLByte).
  if (value === "" || [...value].some((char) => char < " " || char === "\x7f")) return false;
  if (value === "*") return true;
  let rest = value;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value);
  if (value.startsWith(":")) return false;
  if (scheme) rest = value.slice(scheme[0].length);
  const query = rest.indexOf("?");
  if (query >= 0) rest = rest.slice(0, query);
  if (!rest.startsWith("/")) return scheme !== null;
  if (scheme && rest.startsWith("//")) {
    const end = rest.indexOf("/", 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? "" : rest.slice(end);
    const at = authority.lastIndexOf("@");
    const userinfo = at < 0 ? "" : authority.slice(0, at);
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return false;
    if (!isGoHost(at < 0 ? authority : authority.slice(at + 1))) return false;
  }
  return validEscapes(rest);
}

function isGoHost(host: string): boolean {
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) return false;
    const port = host.slice(close + 1);
    return (port === "" || /^:\d*$/.test(port)) && validEscapes(host.slice(1, close));
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && !/^:\d*$/.test(host.slice(colon))) return false;
  const name = colon >= 0 ? host.slice(0, colon) : host;
  return validEscapes(name) && !/[\s"<>\\^`{|}]/.test(name);
}

const validEscapes = (text: string) => !/%(?![0-9a-fA-F]{2})/.test(text);

/** net/mail ParseAddress: `local@domain`, optionally as `Name <local@domain>`. */
function isEmail(value: string): boolean {
  const atom = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uffff]+";
  const dotAtom = `${atom}(?:\\.${atom})*`;
  const quoted = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
  const address = `(?:${dotAtom}|${quoted})@(?:${dotAtom}|\\[[^\\[\\]\\\\]*\\])`;
  const phrase = `(?:${atom}|${quoted})(?:[ \\t]+(?:${atom}|${quoted}|\\.))*`;
  return new RegExp(`^[ \\t]*(?:${address}|(?:${phrase})?[ \\t]*<${address}>)[ \\t]*$`).test(value);
}

/** strfmt.IsHostname: IDNA for registration (golang.org/x/net/idna), then a numeric end must be an IPv4. */
function isHostname(value: string): boolean {
  if (value === "") return false;
  if (value.startsWith("[")) {
    if (!value.endsWith("]")) return false;
    const inner = value.slice(1, -1);
    return !inner.includes("%") && isIP(inner) === 6;
  }
  const ascii = /^[\x21-\x7e]*$/.test(value) ? value.toLowerCase() : domainToASCII(value.toLowerCase());
  if (ascii === "") return false;
  const trimmed = ascii.endsWith(".") ? ascii.slice(0, -1) : ascii;
  if (trimmed.length === 0 || trimmed.length > 253) return false;
  const labels = trimmed.split(".");
  const ldh = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
  if (!labels.every((label) => ldh.test(label) && (label.slice(2, 4) !== "--" || label.startsWith("xn--"))))
    return false;
  const last = labels[labels.length - 1] ?? "";
  if (/^0x[0-9a-f]*$/.test(last) || /^\d+$/.test(last)) return isNumericIPv4(labels);
  return labels.length === 1 || last.length >= 2;
}

/** strfmt's isValidIPv4 for a host ending in a number: 1–4 parts, decimal, octal or hex (`0x`). */
function isNumericIPv4(parts: string[]): boolean {
  if (parts.length === 0 || parts.length > 4) return false;
  const values: number[] = [];
  for (const part of parts) {
    if (part.length === 0 || part.length > 11 || !/^\d/.test(part)) return false;
    let parsed: number;
    if (part.startsWith("0x")) parsed = part.length === 2 ? 0 : parseStrict(part.slice(2), 16, /^[0-9a-f]+$/);
    else if (part.startsWith("0") && part !== "0") parsed = parseStrict(part.slice(1), 8, /^[0-7]+$/);
    else parsed = /^\d+$/.test(part) && Number(part) <= 255 ? Number(part) : Number.NaN;
    if (Number.isNaN(parsed) || parsed > 0xffffffff) return false;
    values.push(parsed);
  }
  const lastValue = values[values.length - 1] ?? 0;
  if (lastValue > 2 ** (8 * (5 - values.length))) return false;
  return values.slice(0, -2).every((part) => part <= 255);
}

const parseStrict = (text: string, radix: number, shape: RegExp) =>
  shape.test(text) ? Number.parseInt(text, radix) : Number.NaN;
