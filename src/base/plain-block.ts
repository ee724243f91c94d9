/**
 * The structure of the plainest block YAML, shared by the readers that give one parser's value for it
 * without running that parser (src/manifests/yaml-plain-block.ts: js-yaml's; src/go/yaml/plain-block.ts:
 * Go's yaml.v3 through the `yaml` package). It reads block maps and block lists (a list item may open a
 * map: `- name: x`), printable ASCII only, with whole-line comments and blank lines; a scalar is on its
 * key's or item's line: plain (one line, no `#`, no `: `, no indicator to start it), or single-quoted or
 * double-quoted without escapes. What a plain scalar or key means, what a map is and what an empty value
 * is are the dialect's. Anything else (block scalars, flow collections, anchors, tags, multi-line
 * scalars, repeated keys, `__proto__`, odd indentation, tabs, CR, non-ASCII, directives, document
 * markers) gives `undefined`: the caller then parses the text in full.
 */
export interface PlainBlockDialect<M> {
  /**
   * A plain scalar that starts with no indicator and holds no `#` (the dialects differ on `~`): what
   * the parser reads to the line's end.
   */
  plainScalar: RegExp;
  /** A plain scalar's value; `unsure` thrown where the reader is not sure of it. */
  resolve(plain: string): unknown;
  /** A written key's string, or `undefined` where the parser would make something else of it. */
  key(written: string): string | undefined;
  newMap(): M;
  has(map: M, key: string): boolean;
  set(map: M, key: string, value: unknown): void;
  /** `key:` with nothing under it: its value, or `unsure` thrown. */
  emptyValue(): unknown;
  /** Whether `[]` and `{}` on a line are empty collections (else the reader gives up on them). */
  emptyCollections: boolean;
  /** Whether a `---` first line (the document's start) is skipped. */
  leadingMarker: boolean;
}

/** Thrown where the reader (or its dialect) is not sure what the parser would make of the text. */
export const unsure = Symbol("unsure");

/** The dialect's value of `text`, or `undefined` when the reader is not sure of it. */
export function readPlainBlock<M>(text: string, dialect: PlainBlockDialect<M>): unknown {
  // Printable ASCII and newlines only: no tab, CR, BOM, control or non-ASCII character to reason about.
  if (!plainText.test(text)) return undefined;
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    const first = start === 0;
    start = end + 1;
    const content = line.trimStart();
    // Blank lines and whole-line comments (a `#` after spaces): nothing to the parser either.
    if (content === "" || content.charCodeAt(0) === hash) continue;
    if (first && line === "---" && dialect.leadingMarker) continue;
    // Directives, document markers, a `...` end: left to the parser.
    if (line.startsWith("---") || line.startsWith("...") || line.startsWith("%")) return undefined;
    lines.push({ indent: line.length - content.length, text: content });
  }
  if (lines.length === 0 || (lines[0] as Line).indent !== 0) return undefined;
  const reader = new Reader(lines, dialect);
  try {
    const value = reader.node(0, 0);
    // Every node takes only the lines at its own indent: a line left over (a scalar's continuation, an
    // indent no enclosing node has) is one the reader does not understand.
    return reader.at === lines.length ? value : undefined;
  } catch (error) {
    if (error === unsure) return undefined;
    throw error;
  }
}

const plainText = /^[\x20-\x7e\n]*$/;
const hash = 0x23;

interface Line {
  indent: number;
  text: string;
}

/** Parsers stop at 100 levels; the reader leaves deep documents to them well before. */
const maxDepth = 50;

/** A key: a plain word (resolved by the dialect), then `:`. */
const keyPattern = /^([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: +(.*))?$/;

class Reader<M> {
  at = 0;
  constructor(
    private readonly lines: Line[],
    private readonly dialect: PlainBlockDialect<M>,
  ) {}

  /** The node whose first line is the current one, at exactly `indent`. */
  node(indent: number, depth: number): unknown {
    if (depth > maxDepth) throw unsure;
    const line = this.lines[this.at];
    if (line === undefined || line.indent !== indent) throw unsure;
    return isItem(line.text) ? this.list(indent, depth) : this.map(indent, depth);
  }

  private list(indent: number, depth: number): unknown[] {
    const items: unknown[] = [];
    for (
      let line = this.lines[this.at];
      line?.indent === indent && isItem(line.text);
      line = this.lines[this.at]
    ) {
      if (line.text === "-") throw unsure;
      // The item's content starts after `- ` and its blanks: a map there goes on at that column.
      const rest = line.text.slice(1).trimStart();
      const column = indent + line.text.length - rest.length;
      if (keyPattern.test(rest)) {
        this.lines[this.at] = { indent: column, text: rest };
        items.push(this.map(column, depth + 1));
      } else {
        this.at++;
        items.push(this.scalar(rest));
      }
    }
    return items;
  }

  private map(indent: number, depth: number): M {
    const { dialect } = this;
    const map = dialect.newMap();
    for (let line = this.lines[this.at]; line?.indent === indent; line = this.lines[this.at]) {
      if (isItem(line.text)) throw unsure;
      const match = keyPattern.exec(line.text);
      if (!match) throw unsure;
      const written = match[1] as string;
      // YAML allows an implicit key of at most 1024 characters.
      if (written.length > 1000) throw unsure;
      const key = dialect.key(written);
      if (key === undefined || key === "__proto__" || dialect.has(map, key)) throw unsure;
      this.at++;
      const inline = match[2];
      if (inline !== undefined && inline !== "") {
        dialect.set(map, key, this.scalar(inline));
        continue;
      }
      const next = this.lines[this.at];
      if (next !== undefined && next.indent > indent)
        dialect.set(map, key, this.node(next.indent, depth + 1));
      // A list may sit at its key's own indent (`key:` then `- a`).
      else if (next !== undefined && next.indent === indent && isItem(next.text))
        dialect.set(map, key, this.list(indent, depth + 1));
      else dialect.set(map, key, dialect.emptyValue());
    }
    return map;
  }

  /** A scalar written on one line after a key or an item's `- `. */
  private scalar(text: string): unknown {
    if (this.dialect.emptyCollections) {
      if (text === "[]") return [];
      if (text === "{}") return {};
    }
    const first = text.charCodeAt(0);
    if (first === 0x27) {
      // 'single-quoted': every quote inside doubled, nothing after the closing one.
      const body = text.slice(1, -1);
      if (text.length < 2 || !text.endsWith("'") || body.replace(/''/g, "").includes("'")) throw unsure;
      return body.replace(/''/g, "'");
    }
    if (first === 0x22) {
      // "double-quoted" without escapes.
      const body = text.slice(1, -1);
      if (text.length < 2 || !text.endsWith('"') || body.includes('"') || body.includes("\\")) throw unsure;
      return body;
    }
    if (
      !this.dialect.plainScalar.test(text) ||
      text.includes(": ") ||
      text.endsWith(":") ||
      text.endsWith(" ")
    )
      throw unsure;
    return this.dialect.resolve(text);
  }
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}
