/**
 * Go's net/url.Parse (url.go of Go 1.24.9, the operator's: a bracketed host must hold an IPv6 address),
 * as far as whether it fails and with which
 * message: the Forkspacer operator parses spec.helm.chart.git.repo with it before cloning
 * (pkg/manager/helm.go), and an error fails the install. `git@github.com:org/repo.git` (scp-like, no
 * scheme) is such an error: `first path segment in URL cannot contain colon`. Go works on bytes: the
 * text is read as a byte string (one character per UTF-8 byte), and quoted back as Go quotes bytes.
 */
import { Buffer } from "node:buffer";
import { goQuote } from "../strconv/go-strings.js";
import { parseAddr } from "./netip.js";

type Mode = "path" | "host" | "zone" | "userPassword" | "fragment";

class UrlError extends Error {}

/** `url.Parse(raw)`'s error message, or undefined when Go parses it. */
export function goUrlParseError(raw: string): string | undefined {
  const bytes = Buffer.from(raw, "utf8").toString("latin1");
  const hash = bytes.indexOf("#");
  const u = hash < 0 ? bytes : bytes.slice(0, hash);
  try {
    parse(u);
  } catch (e) {
    if (e instanceof UrlError) return `parse ${quoteBytes(u)}: ${e.message}`;
    throw e;
  }
  if (hash >= 0) {
    try {
      urlUnescape(bytes.slice(hash + 1), "fragment");
    } catch (e) {
      if (e instanceof UrlError) return `parse ${quoteBytes(bytes)}: ${e.message}`;
      throw e;
    }
  }
  return undefined;
}

/**
 * `url.ParseRequestURI(raw)`'s error message, or undefined when Go parses it: the whole text (a `#`
 * is part of the path) as an absolute URI or an absolute path, nothing relative. The API server checks
 * a CRD's `format: uri` with it (kube-openapi strfmt's IsURI).
 */
export function goRequestUriError(raw: string): string | undefined {
  // The plainest absolute URIs parse, whatever their length: one pass of a regex instead of the walk
  // (50,000 links of a ModuleTemplate UPDATE's two objects cost 10-15 ms of the parse's slices).
  if (plainRequestUri.test(raw)) return undefined;
  return requestUriErrorByParse(raw);
}

/**
 * An absolute URI every step of `parse` (ParseRequestURI, Go 1.26's host) takes: an ASCII scheme,
 * `//`, a host of letters, digits and `-._~` (no userinfo, no IP literal, no escape), an optional port of
 * digits, a path of printable ASCII without `%` (so no escape to check; `#` is path here) up to the first
 * `?`, and a query, which ParseRequestURI cuts off unread (control characters and spaces are left to the
 * walk). Each part ends where the next one's first character is: one pass, no backtracking.
 */
const plainRequestUri =
  /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[A-Za-z0-9._~-]*(?::[0-9]*)?(?:\/[!-$&->@-~]*)?(?:\?[!-~]*)?$/;

/** `goRequestUriError` without its shortcut: the walk of `parse` (tests hold the shortcut to it). */
export function requestUriErrorByParse(raw: string): string | undefined {
  // Go reads bytes: each UTF-8 byte as a character; ASCII text is its bytes already (no round trip).
  const bytes = nonAscii.test(raw) ? Buffer.from(raw, "utf8").toString("latin1") : raw;
  try {
    parse(bytes, { viaRequest: true, go126: true });
  } catch (e) {
    if (e instanceof UrlError) return `parse ${quoteBytes(bytes)}: ${e.message}`;
    throw e;
  }
  return undefined;
}

const nonAscii = /[\u0080-\uffff]/;

/** strconv.Quote of a byte string: valid UTF-8 as characters, any other byte as \xNN. */
function quoteBytes(bytes: string): string {
  const buffer = Buffer.from(bytes, "latin1");
  let out = "";
  let run = 0;
  const flush = (end: number) => {
    if (end > run) out += goQuote(buffer.subarray(run, end).toString("utf8")).slice(1, -1);
  };
  for (let i = 0; i < buffer.length; ) {
    const length = utf8Length(buffer, i);
    if (length > 0) {
      i += length;
      continue;
    }
    flush(i);
    out += `\\x${(buffer[i] as number).toString(16).padStart(2, "0")}`;
    i++;
    run = i;
  }
  flush(buffer.length);
  return `"${out}"`;
}

/** The length of the well-formed UTF-8 sequence at `i`, or 0 where Go's decoder sees an error. */
function utf8Length(b: Buffer, i: number): number {
  const c = b[i] as number;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const x = b[i + k];
    return x !== undefined && x >= lo && x <= hi;
  };
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (c >= 0xe1 && c <= 0xef && c !== 0xed) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/**
 * `viaRequest`: ParseRequestURI's reading. `go126`: Go 1.26's parseHost (the API server's build)
 * instead of Go 1.24.9's (the operator's).
 */
function parse(raw: string, { viaRequest = false, go126 = false } = {}): void {
  if (viaRequest && raw === "") throw new UrlError("empty url");
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new UrlError("net/url: invalid control character in URL");
  }
  if (raw === "*") return;
  const { scheme, rest: afterScheme } = getScheme(raw);
  let rest = afterScheme;
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf("?");
    if (q >= 0) rest = rest.slice(0, q);
  }
  if (!rest.startsWith("/")) {
    if (scheme !== "") return; // opaque
    if (viaRequest) throw new UrlError("invalid URI for request");
    const slash = rest.indexOf("/");
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(":")) throw new UrlError("first path segment in URL cannot contain colon");
  }
  if ((scheme !== "" || (!viaRequest && !rest.startsWith("///"))) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    parseAuthority(authority, scheme, go126);
  }
  urlUnescape(rest, "path");
}

function getScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z")) continue;
    if ((c >= "0" && c <= "9") || c === "+" || c === "-" || c === ".") {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") {
      if (i === 0) throw new UrlError("missing protocol scheme");
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

function parseAuthority(authority: string, scheme: string, go126: boolean): void {
  const at = authority.lastIndexOf("@");
  const host = at < 0 ? authority : authority.slice(at + 1);
  if (go126) parseHost126(host, scheme);
  else parseHost(host);
  if (at < 0) return;
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new UrlError("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) urlUnescape(userinfo, "userPassword");
  else {
    urlUnescape(userinfo.slice(0, colon), "userPassword");
    urlUnescape(userinfo.slice(colon + 1), "userPassword");
  }
}

/**
 * parseHost (Go 1.24.8's, the operator's 1.24.9): a host holding a `[` is an IP literal from its last
 * `[` to its last `]`, which must unescape to an IPv6 address (zone allowed, `%25` introducing it; no
 * IPv4, no IPv4-mapped one), then an optional port; any other host may carry colons, the last starting
 * the port.
 */
function parseHost(host: string): void {
  const open = host.lastIndexOf("[");
  if (open !== -1) {
    const close = host.lastIndexOf("]");
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteBytes(colonPort)} after host`);
    urlUnescape(colonPort, "host");
    // Go slices host[open+1:close]: with the `]` before the `[` it panics (the install fails with it).
    if (close < open) throw new UrlError("net/url panics: slice bounds out of range");
    const hostname = host.slice(open + 1, close);
    const parsed = parseAddr(unescapeIpLiteral(hostname), quoteBytes);
    if (!parsed.ok) throw new UrlError(`invalid host: ${parsed.error}`);
    if (parsed.is4 || parsed.is4In6) throw new UrlError("invalid IPv6 host");
    return;
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0) {
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteBytes(colonPort)} after host`);
  }
  urlUnescape(host, "host");
}

/** An IP literal's address unescaped as Go does: the host's rules, a zone's after its `%25`. */
function unescapeIpLiteral(hostname: string): string {
  const zone = hostname.indexOf("%25");
  return zone >= 0
    ? urlUnescape(hostname.slice(0, zone), "host") + urlUnescape(hostname.slice(zone), "zone")
    : urlUnescape(hostname, "host");
}

/**
 * parseHost of Go 1.26 (net/url/url.go): an IP literal must start the host (`[` elsewhere is "invalid
 * IP-literal") and may be an IPv4-mapped IPv6 address, not an IPv4 one; in an http or https host
 * with several colons the port starts at the first (so it is invalid), elsewhere at the last.
 */
function parseHost126(host: string, scheme: string): void {
  const open = host.lastIndexOf("[");
  if (open > 0) throw new UrlError("invalid IP-literal");
  if (open === 0) {
    const close = host.lastIndexOf("]");
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteBytes(colonPort)} after host`);
    urlUnescape(colonPort, "host");
    const hostname = host.slice(1, close);
    const parsed = parseAddr(unescapeIpLiteral(hostname), quoteBytes);
    if (!parsed.ok) throw new UrlError(`invalid host: ${parsed.error}`);
    if (parsed.is4) throw new UrlError("invalid IP-literal");
    return;
  }
  const first = host.indexOf(":");
  if (first >= 0) {
    const lower = scheme.toLowerCase();
    const strict = lower === "http" || lower === "https";
    const colonPort = host.slice(strict ? first : host.lastIndexOf(":"));
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteBytes(colonPort)} after host`);
  }
  urlUnescape(host, "host");
}

const validOptionalPort = (port: string): boolean => port === "" || /^:[0-9]*$/.test(port);

const validUserinfo = (s: string): boolean => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** url.unescape: well-formed %XX, in a host only the characters a host may hold; the unescaped bytes. */
function urlUnescape(s: string, mode: Mode): string {
  // The text between escapes is copied a run at a time: a character at a time cost 100x the time for
  // 10x the text (a 1 MB URL: 94 ms).
  // Outside a host only escapes are read: text without one is itself, not walked.
  if (mode !== "host" && mode !== "zone" && !s.includes("%")) return s;
  let out = "";
  let run = 0;
  for (let i = 0; i < s.length; ) {
    const c = s[i] as string;
    if (c === "%") {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${quoteBytes(s.slice(i, i + 3))}`);
      }
      const v = Number.parseInt(s.slice(i + 1, i + 3), 16);
      const escaped = s.slice(i, i + 3);
      if (mode === "host" && v >> 4 < 8 && escaped !== "%25")
        throw new UrlError(`invalid URL escape ${quoteBytes(escaped)}`);
      if (mode === "zone" && escaped !== "%25" && v !== 0x20 && shouldEscape(String.fromCharCode(v), "host"))
        throw new UrlError(`invalid URL escape ${quoteBytes(escaped)}`);
      out += s.slice(run, i) + String.fromCharCode(v);
      i += 3;
      run = i;
      continue;
    }
    if ((mode === "host" || mode === "zone") && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode))
      throw new UrlError(`invalid character ${quoteBytes(c)} in host name`);
    i++;
  }
  return out + s.slice(run);
}

function shouldEscape(c: string, mode: Mode): boolean {
  // One character: a letter or digit by its code (a regex test per character of every host was most
  // of the schema check of 50,000 links).
  const code = c.charCodeAt(0);
  if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39))
    return false;
  if ((mode === "host" || mode === "zone") && "!$&'()*+,;=:[]<>\"".includes(c)) return false;
  if ("-_.~".includes(c)) return false;
  if ("$&+,/:;=?@".includes(c)) {
    if (mode === "path") return c === "?";
    if (mode === "userPassword") return c === "@" || c === "/" || c === "?" || c === ":";
    if (mode === "fragment") return false;
  }
  if (mode === "fragment" && "!()*".includes(c)) return false;
  return true;
}
