import { type GoYamlLibrary, resolvePlain } from "./scalars.js";

/**
 * A reader for the plainest block YAML, giving the tree the `yaml` package and `goKeysAndFlowScalars`
 * would give `toPlain` (maps as `Map`s, scalars as Go resolves them), or `undefined` when it is not
 * sure, so that the caller parses the text in full. It reads block maps and block lists (a list item
 * may open a map: `- name: x`), printable ASCII only, with whole-line comments and blank lines; a scalar
 * is on its key's or item's line: plain (one line, no `#`, no `: `, no indicator to start it), or
 * single-quoted or double-quoted without escapes. Plain scalars are resolved by `resolvePlain`, the
 * function the full parse resolves them with; a key must resolve to a string. Anything else (empty
 * values, block scalars, flow collections, anchors, tags, merge keys, multi-line scalars, repeated keys,
 * odd indentation, tabs, CR, non-ASCII, directives, document markers) gives up. The shape of
 * src/manifests/yaml-plain-block.ts (js-yaml's reader), with Go's resolution; held to the full parse by
 * test/go/yaml/plain-block.test.ts.
 *
 * Why: an addon-operator ConfigMap's sections are small and mostly this plain; the `yaml` package builds
 * a document, its schema, tokens and nodes for each (about 7 KB and 30 µs a section), which a
 * ConfigMap of many sections paid hundreds of times a review, its garbage collected while the parsed
 * review was alive.
 */
export function readGoPlainBlock(text: string, library: GoYamlLibrary): unknown {
  // Printable ASCII and newlines only: no tab, CR, BOM, control or non-ASCII character to reason about.
  if (!plainText.test(text)) return undefined;
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    const content = line.trimStart();
    // Blank lines and whole-line comments (a `#` after spaces): nothing to the parser either.
    if (content === "" || content.charCodeAt(0) === hash) continue;
    // Directives, document markers, a `...` end: left to the parser.
    if (line.startsWith("---") || line.startsWith("...") || line.startsWith("%")) return undefined;
    lines.push({ indent: line.length - content.length, text: content });
  }
  if (lines.length === 0 || (lines[0] as Line).indent !== 0) return undefined;
  const reader = new Reader(lines, library);
  try {
    const value = reader.node(0, 0);
    // Every node takes only the lines at its own indent: a line left over (a scalar's continuation, an
    // indent no enclosing node has) is one the reader does not understand.
    return reader.at === lines.length ? value : undefined;
  } catch {
    // Unsure, or a scalar the resolution throws on: the full parse says what it makes of it.
    return undefined;
  }
}

const plainText = /^[\x20-\x7e\n]*$/;
const hash = 0x23;

interface Line {
  indent: number;
  text: string;
}

/** Thrown (and caught above) where the reader is not sure what the full parse would make of the text. */
const unsure = Symbol("unsure");

/** The full parse refuses nesting past 100 levels; the reader leaves deep documents to it well before. */
const maxDepth = 50;

/** A key: a plain word (resolved below: it must be a string), then `:`. */
const keyPattern = /^([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: +(.*))?$/;

/**
 * A plain scalar on one line that the parser reads to its end: it starts with no indicator (a `-` only
 * before a character that is no blank), and holds no `#` at all (a comment after a blank); `: ` and a
 * trailing `:` or blank are refused where it is used (more than needed: the reader only has to be
 * sure, not complete).
 */
const plainScalar = /^(?:[^-?:,[\]{}#&*!|>'"%@` ~]|-(?=[^ ]))[^#]*$/;

class Reader {
  at = 0;
  constructor(
    private readonly lines: Line[],
    private readonly library: GoYamlLibrary,
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

  private map(indent: number, depth: number): Map<string, unknown> {
    const map = new Map<string, unknown>();
    for (let line = this.lines[this.at]; line?.indent === indent; line = this.lines[this.at]) {
      if (isItem(line.text)) throw unsure;
      const match = keyPattern.exec(line.text);
      if (!match) throw unsure;
      const written = match[1] as string;
      // YAML allows an implicit key of at most 1024 characters.
      if (written.length > 1000) throw unsure;
      const key = resolvePlain(written, this.library);
      // A key Go reads as a number, a bool, null or a time is the full parse's to refuse or convert.
      if (typeof key !== "string" || key === "__proto__" || map.has(key)) throw unsure;
      this.at++;
      const inline = match[2];
      if (inline !== undefined && inline !== "") {
        map.set(key, this.scalar(inline));
        continue;
      }
      const next = this.lines[this.at];
      if (next !== undefined && next.indent > indent) map.set(key, this.node(next.indent, depth + 1));
      // A list may sit at its key's own indent (`key:` then `- a`).
      else if (next !== undefined && next.indent === indent && isItem(next.text))
        map.set(key, this.list(indent, depth + 1));
      // An empty value: null to Go, left to the parser.
      else throw unsure;
    }
    return map;
  }

  /** A scalar written on one line after a key or an item's `- `. */
  private scalar(text: string): unknown {
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
    if (!plainScalar.test(text) || text.includes(": ") || text.endsWith(":") || text.endsWith(" "))
      throw unsure;
    return resolvePlain(text, this.library);
  }
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}
