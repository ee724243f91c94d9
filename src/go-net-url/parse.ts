/**
 * Go's net/url.Parse (Go 1.24, url.go), as far as whether it fails and with which message: the
 * Forkspacer operator parses spec.helm.chart.git.repo with it before cloning (pkg/manager/helm.go),
 * and an error fails the install. `git@github.com:org/repo.git` (scp-like, no scheme) is such an
 * error: `first path segment in URL cannot contain colon`.
 */
import { goQuote } from "../go-template/go-strings.js";

type Mode = "path" | "host" | "zone" | "userPassword" | "fragment";

class UrlError extends Error {}

/** `url.Parse(raw)`'s error message, or undefined when Go parses it. */
export function goUrlParseError(raw: string): string | undefined {
  const hash = raw.indexOf("#");
  const u = hash < 0 ? raw : raw.slice(0, hash);
  try {
    parse(u);
  } catch (e) {
    if (e instanceof UrlError) return `parse ${goQuote(u)}: ${e.message}`;
    throw e;
  }
  if (hash >= 0) {
    try {
      checkEscapes(raw.slice(hash + 1), "fragment");
    } catch (e) {
      if (e instanceof UrlError) return `parse ${goQuote(raw)}: ${e.message}`;
      throw e;
    }
  }
  return undefined;
}

/**
 * Whether `url.ParseRequestURI(raw)` fails (kube-openapi's `format: uri`): the whole text is the URL
 * (no fragment), and without a scheme it must be an absolute path.
 */
export function goParseRequestUriError(raw: string): string | undefined {
  if (raw === "") return "empty url";
  try {
    parse(raw, true);
  } catch (e) {
    if (e instanceof UrlError) return `parse ${goQuote(raw)}: ${e.message}`;
    throw e;
  }
  return undefined;
}

function parse(raw: string, viaRequest = false): void {
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
    parseAuthority(authority);
  }
  checkEscapes(rest, "path");
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

function parseAuthority(authority: string): void {
  const at = authority.lastIndexOf("@");
  parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return;
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new UrlError("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) checkEscapes(userinfo, "userPassword");
  else {
    checkEscapes(userinfo.slice(0, colon), "userPassword");
    checkEscapes(userinfo.slice(colon + 1), "userPassword");
  }
}

function parseHost(host: string): void {
  if (host.startsWith("[")) {
    const close = host.lastIndexOf("]");
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, close).indexOf("%25");
    if (zone >= 0) {
      checkEscapes(host.slice(0, zone), "host");
      checkEscapes(host.slice(zone, close), "zone");
      checkEscapes(host.slice(close), "host");
      return;
    }
  } else {
    const colon = host.lastIndexOf(":");
    if (colon >= 0) {
      const colonPort = host.slice(colon);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  checkEscapes(host, "host");
}

const validOptionalPort = (port: string): boolean => port === "" || /^:[0-9]*$/.test(port);

const validUserinfo = (s: string): boolean => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

/** Go's %q of the first three bytes of `s` (the excerpt EscapeError quotes): bytes of a cut character as \\x... */
function quoteBytes(s: string): string {
  const bytes = Buffer.from(s, "utf8").subarray(0, 3);
  for (let k = bytes.length; k >= 0; k--) {
    const text = bytes.subarray(0, k).toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes.subarray(0, k))) continue;
    const tail = [...bytes.subarray(k)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
    return `${goQuote(text).slice(0, -1)}${tail}"`;
  }
  return goQuote(s);
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** url.unescape's checks: well-formed %XX, and in a host only the characters a host may hold. */
function checkEscapes(s: string, mode: Mode): void {
  // Go works on bytes; a non-ASCII character is never a problem here.
  for (let i = 0; i < s.length; ) {
    const c = s[i] as string;
    if (c === "%") {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${quoteBytes(s.slice(i, i + 3))}`);
      }
      const hi = Number.parseInt(s[i + 1] as string, 16);
      if (mode === "host" && hi < 8 && s.slice(i, i + 3) !== "%25")
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      if (mode === "zone") {
        const v = Number.parseInt(s.slice(i + 1, i + 3), 16);
        if (s.slice(i, i + 3) !== "%25" && v !== 0x20 && shouldEscape(String.fromCharCode(v), "host"))
          throw new UrlError(`invalid URL escape ${quoteBytes(s.slice(i, i + 3))}`);
      }
      i += 3;
      continue;
    }
    if ((mode === "host" || mode === "zone") && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode))
      throw new UrlError(`invalid character ${goQuote(c)} in host name`);
    i++;
  }
}

function shouldEscape(c: string, mode: Mode): boolean {
  if (/[A-Za-z0-9]/.test(c)) return false;
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
