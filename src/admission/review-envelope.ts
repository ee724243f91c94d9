/** What identifies a review without its objects. */
export interface ReviewEnvelope {
  uid: string;
  /** `request.kind.kind`. */
  kind?: string;
  name?: string;
  namespace?: string;
  operation?: string;
  dryRun?: boolean;
}

/**
 * The request's uid, kind, name, namespace, operation and dryRun, read from an AdmissionReview's JSON
 * text without building any of it: one linear scan that keeps a position and a few short strings
 * (`whole`: to the text's end; else it stops at the objects, once the uid is known). For
 * a body whose parse may outgrow the worker's heap (7 MiB of `{}` parse into 131 MB of objects), so
 * that a review ended while it is parsed can still be answered for its uid. Undefined when the text
 * holds no such request (it is then parsed as usual and answered 400, or its worker's end is).
 */
export function scanEnvelope(text: string, { whole = false } = {}): ReviewEnvelope | undefined {
  let found: Partial<ReviewEnvelope> = {};
  try {
    const cursor = new Cursor(text);
    cursor.object((key) => {
      if (key !== "request") return cursor.skipValue();
      found = {};
      cursor.object((field) => {
        // The API server writes the envelope first (uid, kind, name, namespace, operation), then the
        // objects (and dryRun): unless asked for the whole text, the scan ends at the objects.
        if (!whole && (field === "object" || field === "oldObject") && typeof found.uid === "string") {
          throw stop;
        }
        // As JSON.parse, the last of repeated keys counts.
        if (field === "uid" || field === "name" || field === "namespace" || field === "operation") {
          found[field] = cursor.shortString();
        } else if (field === "dryRun") {
          found.dryRun = cursor.isNext("t") || cursor.isNext("f") ? cursor.literal() === "true" : undefined;
          if (found.dryRun === undefined) cursor.skipValue();
        } else if (field === "kind" && cursor.isNext("{")) {
          found.kind = undefined;
          cursor.object((part) => {
            if (part === "kind") found.kind = cursor.shortString();
            else cursor.skipValue();
          });
        } else {
          if (field === "kind") found.kind = undefined;
          cursor.skipValue();
        }
      });
    });
  } catch (error) {
    if (error !== stop) return undefined;
  }
  if (typeof found.uid !== "string" || found.uid === "") return undefined;
  return Object.fromEntries(
    Object.entries(found).filter(([, value]) => value !== undefined),
  ) as unknown as ReviewEnvelope;
}

/** Strings longer than this are skipped, not read: no field of the envelope is longer. */
const maxChars = 1024;

class NotJson extends Error {}

/** Thrown to end a scan that has what it needs. */
const stop = new Error("enough of the envelope");

/** A position in JSON text; each method reads or skips one thing, and throws `NotJson` on anything else. */
class Cursor {
  private at = 0;
  private readonly special = /["{}[\]]/g;

  constructor(private readonly text: string) {}

  /** An object, each member's value read or skipped by `member` (given the key, if it is short). */
  object(member: (key: string | undefined) => void): void {
    this.expect("{");
    if (this.peek() === "}") {
      this.at++;
      return;
    }
    for (;;) {
      if (this.peek() !== '"') throw new NotJson();
      const key = this.shortString();
      this.expect(":");
      member(key);
      const next = this.peek();
      this.at++;
      if (next === "}") return;
      if (next !== ",") throw new NotJson();
    }
  }

  /** A string, decoded when it has at most `maxChars` characters; else skipped (undefined). */
  shortString(): string | undefined {
    this.skipSpace();
    const start = this.at;
    if (this.text[start] !== '"') {
      this.skipValue();
      return undefined;
    }
    this.skipString();
    return this.at - start > maxChars + 2
      ? undefined
      : (JSON.parse(this.text.slice(start, this.at)) as string);
  }

  /** Whether the next value starts with `char`. */
  isNext(char: string): boolean {
    return this.peek() === char;
  }

  /** A literal (`true`, `false`, `null`, a number) as text. */
  literal(): string {
    this.skipSpace();
    const start = this.at;
    while (this.at < this.text.length && !/[\s,}\]]/.test(this.text[this.at] as string)) this.at++;
    return this.text.slice(start, this.at);
  }

  /** Any value, passed over: containers by counting brackets outside strings, found by a native search. */
  skipValue(): void {
    this.skipSpace();
    const first = this.text[this.at];
    if (first === '"') {
      this.skipString();
      return;
    }
    if (first !== "{" && first !== "[") {
      if (this.literal() === "") throw new NotJson();
      return;
    }
    let depth = 0;
    for (;;) {
      this.special.lastIndex = this.at;
      const match = this.special.exec(this.text);
      if (!match) throw new NotJson();
      this.at = match.index;
      const char = match[0];
      if (char === '"') {
        this.skipString();
        continue;
      }
      this.at++;
      depth += char === "{" || char === "[" ? 1 : -1;
      if (depth === 0) return;
    }
  }

  /** A string, from its opening quote past its closing one (a quote after an odd run of backslashes is escaped). */
  private skipString(): void {
    let from = this.at + 1;
    for (;;) {
      const quote = this.text.indexOf('"', from);
      if (quote === -1) throw new NotJson();
      let backslashes = 0;
      while (this.text[quote - 1 - backslashes] === "\\") backslashes++;
      from = quote + 1;
      if (backslashes % 2 === 0) break;
    }
    this.at = from;
  }

  private expect(char: string): void {
    if (this.peek() !== char) throw new NotJson();
    this.at++;
  }

  private peek(): string | undefined {
    this.skipSpace();
    return this.text[this.at];
  }

  private skipSpace(): void {
    while (this.at < this.text.length) {
      const char = this.text.charCodeAt(this.at);
      if (char !== 0x20 && char !== 0x0a && char !== 0x0d && char !== 0x09) return;
      this.at++;
    }
  }
}
