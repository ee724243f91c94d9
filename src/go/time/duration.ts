import { Buffer } from "node:buffer";

/**
 * Go's time.ParseDuration (time/format.go), with its error texts: robfig/cron's `@every` reads its
 * duration with it, and so does cel-go's `duration()`. A signed sequence of decimal numbers, each with
 * an optional fraction and a unit (ns, us, µs, μs, ms, s, m, h); "0" alone needs no unit; the total
 * must fit an int64 of nanoseconds. Returns the nanoseconds, or Go's error message.
 */
export type ParsedDuration = { ok: true; nanoseconds: bigint } | { ok: false; error: string };

const units: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const max = 1n << 63n;

export function parseGoDuration(text: string): ParsedDuration {
  // Go reads bytes; a byte string keeps its indexes (µ is two bytes).
  const orig = Buffer.from(text, "utf8").toString("latin1");
  const fail = (message: string): ParsedDuration => ({ ok: false, error: `time: ${message} ${quote(orig)}` });
  let s = orig;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return { ok: true, nanoseconds: 0n };
  if (s === "") return fail("invalid duration");
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) return fail("invalid duration");
    let i = 0;
    let v = 0n;
    for (; i < s.length && isDigit(s[i]); i++) {
      if (v > max / 10n) return fail("invalid duration");
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > max) return fail("invalid duration");
    }
    const pre = i > 0;
    s = s.slice(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== "" && s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      for (; j < s.length && isDigit(s[j]); j++) {
        if (overflow) continue;
        if (f > (max - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (y > max) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return fail("invalid duration");
    let u = 0;
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) u++;
    if (u === 0) return fail("missing unit in duration");
    const unitText = Buffer.from(s.slice(0, u), "latin1").toString("utf8");
    const unit = units[unitText];
    if (unit === undefined) return fail(`unknown unit ${quote(s.slice(0, u))} in duration`);
    s = s.slice(u);
    if (v > max / unit) return fail("invalid duration");
    v *= unit;
    if (f > 0n) {
      // Go computes the fraction in float64: uint64(float64(f) * (float64(unit) / scale)).
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > max) return fail("invalid duration");
    }
    d += v;
    if (d > max) return fail("invalid duration");
  }
  if (neg) return { ok: true, nanoseconds: -d };
  if (d > max - 1n) return fail("invalid duration");
  return { ok: true, nanoseconds: d };
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** time's own quote of a byte string: printable ASCII as is (with `"` and `\` escaped), else \xNN bytes. */
function quote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += c === 0x22 || c === 0x5c ? `\\${bytes[i]}` : bytes[i];
  }
  return `${out}"`;
}
