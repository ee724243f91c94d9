/**
 * Go's net/netip.ParseAddr (netip.go), as far as url.Parse needs it for a bracketed host: whether the
 * text is an IP address, which family, and Go's error text. `s` is a byte string (one character per
 * byte, as Go's string indexing sees it); `quote` is strconv.Quote of such a string.
 */
export type ParsedAddr = { ok: true; is4: boolean; is4In6: boolean } | { ok: false; error: string };

export function parseAddr(s: string, quote: (bytes: string) => string): ParsedAddr {
  const fail = (msg: string, at = ""): ParsedAddr => ({
    ok: false,
    error: `ParseAddr(${quote(s)}): ${msg}${at === "" ? "" : ` (at ${quote(at)})`}`,
  });
  for (const c of s) {
    if (c === ".") {
      const problem = ipv4Fields(s, 0, s.length);
      return problem ? fail(problem.msg, problem.at) : { ok: true, is4: true, is4In6: false };
    }
    if (c === ":") return ipv6(s, fail);
    if (c === "%") return fail("missing IPv6 address");
  }
  return fail("unable to parse IP");
}

type Problem = { msg: string; at?: string } | undefined;

function ipv4Fields(input: string, off: number, end: number): Problem {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c >= "0" && c <= "9") {
      if (digits === 1 && val === 0) return { msg: "IPv4 field has octet with leading zero" };
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) return { msg: "IPv4 field has value >255" };
    } else if (c === ".") {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".")
        return { msg: "IPv4 field must have at least one digit", at: s.slice(i) };
      if (pos === 3) return { msg: "IPv4 address too long" };
      pos++;
      val = 0;
      digits = 0;
    } else return { msg: "unexpected character", at: s.slice(i) };
  }
  if (pos < 3) return { msg: "IPv4 address too short" };
  return undefined;
}

const hexValue = (c: string): number => {
  if (c >= "0" && c <= "9") return c.charCodeAt(0) - 48;
  if (c >= "a" && c <= "f") return c.charCodeAt(0) - 87;
  if (c >= "A" && c <= "F") return c.charCodeAt(0) - 55;
  return -1;
};

function ipv6(input: string, fail: (msg: string, at?: string) => ParsedAddr): ParsedAddr {
  let s = input;
  let zone = "";
  const percent = s.indexOf("%");
  if (percent !== -1) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (zone === "") return fail("zone must be a non-empty string");
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { ok: true, is4: false, is4In6: false };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const v = hexValue(s[off] as string);
      if (v < 0) break;
      acc = acc * 16 + v;
      if (off > 3) return fail("each group must have 4 or less digits", s);
      if (acc > 0xffff) return fail("IPv6 field has value >=2^16", s);
    }
    if (off === 0) return fail("each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12)
        return fail("embedded IPv4 address must replace the final 2 fields of the address", s);
      if (i + 4 > 16) return fail("too many hex fields to fit an embedded IPv4 at the end of the address", s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      const problem = ipv4Fields(input, end - s.length, end);
      if (problem) return fail(problem.msg, problem.at);
      input
        .slice(end - s.length, end)
        .split(".")
        .forEach((field, k) => {
          ip[i + k] = Number(field);
        });
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":") return fail("unexpected character, want colon", s);
    if (s.length === 1) return fail("colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return fail("multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return fail("trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) return fail("address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) return fail("the :: must expand to at least one field of zeros");
  // Is4In6: ::ffff:a.b.c.d, the IPv4-mapped prefix.
  const is4In6 = ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
  return { ok: true, is4: false, is4In6 };
}
