import { CORE_SCHEMA } from "js-yaml";

/**
 * A reader for the plainest block YAML, giving exactly js-yaml's value (its default CORE_SCHEMA) or
 * `undefined` when it is not sure, so that the caller reads the document with js-yaml. It reads block
 * maps and block lists (a list item may open a map: `- name: x`), printable ASCII only, with whole-line
 * comments and blank lines; a scalar is on its key's or item's line: plain (one line, no `#`, no `: `,
 * no indicator to start it), single-quoted or double-quoted without escapes, or an empty `[]` / `{}`.
 * Plain scalars and keys are resolved by js-yaml's own schema (`resolveImplicitScalarTag`, as its loader
 * does), so `1`, `true`, `null`, `1.5e3` are what js-yaml makes of them. Anything else (block scalars,
 * flow collections, anchors, tags, multi-line scalars, duplicate keys, `__proto__`, odd indentation,
 * tabs, CR, non-ASCII) gives up. Held to js-yaml by test/manifests/yaml-plain-block.test.ts.
 *
 * Four to five times cheaper than js-yaml on the manifests `validate` reads most: where a CI run spends
 * its time on many plain manifests.
 */
export function readPlainBlockYaml(text: string): unknown {
  // Printable ASCII and newlines only: no tab, CR, BOM, control or non-ASCII character to reason about.
  if (!plainText.test(text)) return undefined;
  const lines: Line[] = [];
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i] as string;
    const content = line.trimStart();
    // Blank lines and whole-line comments (a `#` after spaces): nothing to js-yaml either.
    if (content === "" || content.charCodeAt(0) === hash) continue;
    if (i === 0 && line === "---") continue;
    // Directives, document markers, a `...` end: left to js-yaml.
    if (line.startsWith("---") || line.startsWith("...") || line.startsWith("%")) return undefined;
    lines.push({ indent: line.length - content.length, text: content });
  }
  if (lines.length === 0) return undefined;
  const reader = new Reader(lines);
  try {
    const first = lines[0] as Line;
    if (first.indent !== 0) return undefined;
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

/** Thrown (and caught above) where the reader is not sure what js-yaml would make of the text. */
const unsure = Symbol("unsure");

/** js-yaml stops at 100 levels; the reader leaves deep documents to it well before. */
const maxDepth = 50;

/** A key: a plain word js-yaml reads as itself or another scalar (resolved below), then `:`. */
const keyPattern = /^([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: +(.*))?$/;

/**
 * A plain scalar on one line that js-yaml reads to its end: it starts with no indicator (a `-` only
 * before a character that is no blank), and holds no `#` at all (a comment after a blank); `: ` and a
 * trailing `:` or blank are refused where it is used (more than needed: the reader only has to be
 * sure, not complete).
 */
const plainScalar = /^(?:[^-?:,[\]{}#&*!|>'"%@` ]|-(?=[^ ]))[^#]*$/;

/**
 * js-yaml's own resolution of a plain scalar (an internal method of its Schema, the one its loader
 * calls). Should a js-yaml release drop it, the reader gives up on every document and js-yaml reads all.
 */
const schema = CORE_SCHEMA as unknown as { resolveImplicitScalarTag?(source: string): { value: unknown } };
const resolveImplicit =
  typeof schema.resolveImplicitScalarTag === "function"
    ? schema.resolveImplicitScalarTag.bind(CORE_SCHEMA)
    : () => {
        throw unsure;
      };

class Reader {
  at = 0;
  constructor(private readonly lines: Line[]) {}

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
        items.push(scalar(rest));
      }
    }
    return items;
  }

  private map(indent: number, depth: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (let line = this.lines[this.at]; line?.indent === indent; line = this.lines[this.at]) {
      if (isItem(line.text)) throw unsure;
      const match = keyPattern.exec(line.text);
      if (!match) throw unsure;
      const written = match[1] as string;
      // YAML allows an implicit key of at most 1024 characters.
      if (written.length > 1000) throw unsure;
      const key = String(resolveImplicit(written).value);
      if (key === "__proto__" || Object.hasOwn(map, key)) throw unsure;
      this.at++;
      const inline = match[2];
      if (inline !== undefined && inline !== "") {
        map[key] = scalar(inline);
        continue;
      }
      const next = this.lines[this.at];
      if (next !== undefined && next.indent > indent) map[key] = this.node(next.indent, depth + 1);
      // A list may sit at its key's own indent (`key:` then `- a`).
      else if (next !== undefined && next.indent === indent && isItem(next.text))
        map[key] = this.list(indent, depth + 1);
      else map[key] = null;
    }
    return map;
  }
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

/** A scalar written on one line after a key or an item's `- `. */
function scalar(text: string): unknown {
  if (text === "[]") return [];
  if (text === "{}") return {};
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
  return resolveImplicit(text).value;
}
