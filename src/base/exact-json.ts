/**
 * JSON numbers as the API server reads them (apimachinery's util/json: sigs.k8s.io/json with
 * PreserveInts): an integer literal that fits int64 is an int64, exactly; any other number (a fraction,
 * an exponent, an integer beyond int64) is a float64. JavaScript numbers hold every float64 and every
 * int64 up to 2^53-1; the int64s beyond are held as `bigint`. So, in every value this project reads:
 *
 * - a `bigint` is an int64 beyond ±(2^53-1) (never one within: one value, one representation);
 * - a `number` that is a safe integer is an int64 (or an integral float64, which kube-openapi and
 *   the webhooks cannot tell apart once the API server has written it again);
 * - any other `number`, an integral one beyond 2^53-1 included, is a float64.
 */

import { randomUUID } from "node:crypto";

export const int64Min = -(2n ** 63n);
export const int64Max = 2n ** 63n - 1n;

/**
 * Whether the text holds a run of 16 digits or more: an integer of fewer is safe (2^53 has 16 digits).
 * Such a run holds one of every 16th character, so only those are looked at, and the run around a
 * digit found: four times faster than /\d{16}/ (14 µs against 58 on a 67 KB review, 0.2 ns a byte).
 */
export function hasLongDigitRun(text: string): boolean {
  const digit = (i: number) => {
    const c = text.charCodeAt(i);
    return c >= 0x30 && c <= 0x39;
  };
  for (let i = 15; i < text.length; i += 16) {
    if (!digit(i)) continue;
    let start = i;
    let end = i;
    while (start > 0 && digit(start - 1)) start--;
    while (end + 1 < text.length && digit(end + 1)) end++;
    if (end - start + 1 >= 16) return true;
    // Any later run of 16 starts past `end` and holds one of end+16, end+32, ...
    i = end;
  }
  return false;
}

/**
 * JSON.parse, with int64 literals beyond 2^53-1 read exactly (as bigint). Throws JSON.parse's own
 * SyntaxError for text that is not JSON. `longDigitRun`: `hasLongDigitRun(text)`, when the caller has it.
 */
export function readJson(text: string, longDigitRun: boolean = hasLongDigitRun(text)): unknown {
  const value: unknown = JSON.parse(text);
  if (!longDigitRun) return value;
  // Valid JSON from here on (JSON.parse said so): read again, keeping the long integers.
  return new ExactReader(text).read();
}

/** The value of an int64, in this project's representation: a number when safe, else a bigint. */
export function int64Value(n: bigint): number | bigint {
  return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n;
}

/** A JSON number literal as Go's preserve-ints decoding reads it. */
export function jsonNumber(literal: string): number | bigint {
  if (/^-?\d+$/.test(literal) && literal.length >= 16) {
    const n = BigInt(literal);
    if (n >= int64Min && n <= int64Max) return int64Value(n);
  }
  return Number(literal);
}

/**
 * A number as it reaches the API server from a client that decoded it and wrote it again (kubectl,
 * kustomize, Flux: Go's encoding/json writes an integral float64 below 1e21 with every digit, which the
 * server then reads as an int64 when it fits): `1e3` and `9.2e18` become int64s. A float64 that is no
 * integer, or is beyond int64, stays one.
 */
export function asSentByClient(value: number): number | bigint {
  if (Number.isSafeInteger(value) || !Number.isInteger(value) || Math.abs(value) >= 1e21) return value;
  // Go writes the shortest digits that read back as the float (strconv 'f', -1), as JavaScript does:
  // -2^63 is written -9223372036854776000, beyond int64, and stays a float64.
  const written = BigInt(value.toString());
  return written >= int64Min && written <= int64Max ? int64Value(written) : value;
}

/**
 * JSON.stringify that writes a bigint as the integer it is (JSON.stringify refuses bigints). For the
 * texts that leave the process: answers, stored objects, reports.
 */
export function writeJson(value: unknown, indent?: number): string {
  if (!containsBigint(value, 0)) return JSON.stringify(value, undefined, indent);
  // A mark no string of the value can hold (random per call), replaced by each bigint's digits.
  const mark = `int64:${randomUUID()}`;
  const marked: string[] = [];
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v !== "bigint") return v;
      marked.push(String(v));
      return mark;
    },
    indent,
  );
  let at = 0;
  return text.replaceAll(`"${mark}"`, () => marked[at++] as string);
}

/** Objects read by `readJson` from a text without a long digit run, so no value in them is a bigint. */
const withoutBigints = new WeakSet<object>();

/**
 * Vouches for `values`, read by `readJson` from `text` and not changed since, when the text holds no
 * run of 16 digits: `bigintsAsNumbers` then returns them without a walk (a map of 100,000 keys:
 * 20-30 ms of walking, on every review that fails its schema check).
 */
export function vouchForNumbers(text: string, ...values: unknown[]): void {
  vouchForDigits(hasLongDigitRun(text), ...values);
}

/** `vouchForNumbers` with `hasLongDigitRun(text)` known already (the search costs 0.5 ms a MiB). */
export function vouchForDigits(longDigitRun: boolean, ...values: unknown[]): void {
  if (longDigitRun) return;
  for (const value of values) if (value !== null && typeof value === "object") withoutBigints.add(value);
}

/**
 * The value with each bigint as the double nearest it, copied only where it holds one: for checks
 * that know JavaScript numbers alone (Ajv), where an int64 beyond 2^53-1 is an integer all the same.
 */
export function bigintsAsNumbers(value: unknown, depth = 0): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value === null || typeof value !== "object" || depth > 1000) return value;
  if (withoutBigints.has(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = bigintsAsNumbers(value[i], depth + 1);
      if (item === value[i]) continue;
      copy ??= value.slice();
      copy[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = bigintsAsNumbers(record[key], depth + 1);
    if (item === record[key]) continue;
    copy ??= Object.defineProperties({}, Object.getOwnPropertyDescriptors(record));
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}

function containsBigint(value: unknown, depth: number): boolean {
  if (typeof value === "bigint") return true;
  if (value === null || typeof value !== "object" || depth > 1000) return false;
  if (Array.isArray(value)) return value.some((item) => containsBigint(item, depth + 1));
  for (const key in value)
    if (containsBigint((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/**
 * A JSON reader for text JSON.parse has already accepted: the same value, numbers read by
 * `jsonNumber`. Iterative (an explicit stack), so that nesting JSON.parse took is taken here too.
 */
class ExactReader {
  private at = 0;
  constructor(private readonly text: string) {}

  read(): unknown {
    type Frame = { container: unknown[] | Record<string, unknown>; key?: string };
    const stack: Frame[] = [];
    let result: unknown;
    for (;;) {
      this.skipSpace();
      const frame = stack[stack.length - 1];
      let value: unknown;
      let opened: Frame | undefined;
      const c = this.text.charCodeAt(this.at);
      if (frame && !Array.isArray(frame.container) && frame.key === undefined) {
        // An object's key, or its end.
        if (c === 0x7d /* } */) {
          this.at++;
          stack.pop();
          value = frame.container;
        } else {
          if (c === 0x2c /* , */) {
            this.at++;
            this.skipSpace();
          }
          frame.key = this.string();
          this.skipSpace();
          this.at++; // :
          continue;
        }
      } else if (frame && Array.isArray(frame.container) && c === 0x5d /* ] */) {
        this.at++;
        stack.pop();
        value = frame.container;
      } else {
        if (frame && Array.isArray(frame.container) && c === 0x2c /* , */) {
          this.at++;
          this.skipSpace();
        }
        const d = this.text.charCodeAt(this.at);
        if (d === 0x7b /* { */) {
          this.at++;
          opened = { container: {} };
        } else if (d === 0x5b /* [ */) {
          this.at++;
          opened = { container: [] };
        } else if (d === 0x22 /* " */) value = this.string();
        else if (d === 0x74 /* t */) value = this.word(true, 4);
        else if (d === 0x66 /* f */) value = this.word(false, 5);
        else if (d === 0x6e /* n */) value = this.word(null, 4);
        else value = this.number();
      }
      if (opened) {
        stack.push(opened);
        continue;
      }
      // A finished value goes into the container below it (the one just closed was popped).
      const parent = stack[stack.length - 1];
      if (!parent) {
        result = value;
        break;
      }
      if (Array.isArray(parent.container)) parent.container.push(value);
      else {
        const key = parent.key as string;
        // As JSON.parse: a key named __proto__ is an own property; a repeated key's last value counts.
        if (key === "__proto__")
          Object.defineProperty(parent.container, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else parent.container[key] = value;
        parent.key = undefined;
      }
    }
    return result;
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.at++;
    }
  }

  private word<T>(value: T, length: number): T {
    this.at += length;
    return value;
  }

  private string(): string {
    const start = this.at;
    let escaped = false;
    let i = start + 1;
    for (;;) {
      const c = this.text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c /* \ */) {
        escaped = true;
        i += 2;
      } else i++;
    }
    this.at = i + 1;
    return escaped ? (JSON.parse(this.text.slice(start, i + 1)) as string) : this.text.slice(start + 1, i);
  }

  private number(): number | bigint {
    const start = this.at;
    let i = start;
    for (;;) {
      const c = this.text.charCodeAt(i);
      // Digits, sign, point, exponent: what a JSON number holds.
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) i++;
      else break;
    }
    this.at = i;
    return jsonNumber(this.text.slice(start, i));
  }
}
