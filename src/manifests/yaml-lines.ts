/**
 * Where a field stands in a YAML document, for the block style manifests are written in, read line by
 * line: about a hundred times cheaper than a parser that builds a concrete syntax tree, which `validate`
 * needs only to point its findings at lines. It reads block mappings and sequences (compact `- key: v`
 * and `- - x` items too), plain and quoted keys, comments, block scalars, anchors and tags; anything
 * else (flow collections on a path, multi-line flow or quoted scalars, multi-line plain scalars,
 * aliases, merge and explicit keys, tabs, directives, an empty list item) makes it give up on the
 * whole document, and the caller asks the full parser. It never guesses.
 */

/** A document read as far as lines go; `undefined` where the scanner gave up. */
export type LineTree = Node | null;

interface Entry {
  key: string;
  line: number;
  value: Node | null;
}

interface Item {
  line: number;
  value: Node;
}

type Node =
  | { type: "map"; line: number; entries: Entry[] }
  | { type: "seq"; line: number; items: Item[] }
  | { type: "scalar"; line: number }
  | { type: "flow"; line: number };

interface Line {
  /** 1-based, in the document's text. */
  number: number;
  indent: number;
  /** Without the indentation, the line break and a trailing comment's leading space. */
  content: string;
}

class GiveUp extends Error {}

/** The document's tree of block nodes, null for an empty document, or undefined if it is not plain block YAML. */
export function scanBlockYaml(text: string): LineTree | undefined {
  try {
    const lines = significantLines(text);
    const reader = new Reader(lines);
    const root = reader.block(0);
    if (reader.peek() !== undefined) throw new GiveUp();
    return root;
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

/**
 * The 1-based line of the key (or list item) deepest along `steps` that the document has, as the
 * full parser's offsets give it; with `firstKeyOfLast`, of the first key inside it. Undefined when
 * the tree cannot answer (a step into a flow collection).
 */
export function lineAlong(tree: LineTree, steps: string[], firstKeyOfLast: boolean): number | undefined {
  if (tree === null) return undefined;
  let node: Node | null = tree;
  let line: number | undefined = tree.line;
  for (const step of steps) {
    if (node === null) break;
    if (node.type === "flow") return undefined;
    if (node.type === "seq") {
      // As the full parser's reader indexes: Number(step), whatever the text.
      const item: Item | undefined = node.items[Number(step)];
      if (!item) break;
      line = item.value.line;
      node = item.value;
    } else if (node.type === "map") {
      const entry: Entry | undefined = node.entries.find((candidate) => candidate.key === step);
      if (!entry) break;
      line = entry.line;
      node = entry.value;
    } else {
      break;
    }
  }
  if (firstKeyOfLast && node !== null) {
    if (node.type === "flow") return undefined;
    if (node.type === "map") line = node.entries[0]?.line ?? line;
  }
  return line;
}

function significantLines(text: string): Line[] {
  const lines: Line[] = [];
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const full = (raw[i] as string).endsWith("\r") ? (raw[i] as string).slice(0, -1) : (raw[i] as string);
    const indent = full.length - full.trimStart().length;
    const content = full.slice(indent).trimEnd();
    if (content === "" || content.startsWith("#")) continue;
    if (full.slice(0, indent).includes("\t")) throw new GiveUp();
    if (indent === 0 && (content === "---" || content.startsWith("--- #") || content === "...")) continue;
    if (indent === 0 && (content.startsWith("---") || content.startsWith("%"))) throw new GiveUp();
    lines.push({ number: i + 1, indent, content });
  }
  return lines;
}

class Reader {
  private at = 0;

  constructor(private readonly lines: Line[]) {}

  peek(): Line | undefined {
    return this.lines[this.at];
  }

  /** The node that starts at the next line, if it is indented at least `indent`; null if none does. */
  block(indent: number): Node | null {
    const line = this.peek();
    if (!line || line.indent < indent) return null;
    if (isItem(line.content)) return this.sequence(line.indent);
    if (keyOf(line.content) !== undefined) return this.mapping(line.indent);
    // A lone scalar: the document's whole value, or a value on the line after its key. One that looks
    // like a key this reader could not read is left to the full parser.
    if (/:(\s|$)/.test(line.content)) throw new GiveUp();
    this.at++;
    return this.scalar(line, line.content, line.indent - 1);
  }

  private mapping(indent: number): Node {
    const entries: Entry[] = [];
    const first = this.peek() as Line;
    for (let line = this.peek(); line && line.indent >= indent; line = this.peek()) {
      if (line.indent > indent) throw new GiveUp();
      const key = keyOf(line.content);
      if (key === undefined) {
        if (isItem(line.content)) break; // a list at the parent's indentation: its value, read there
        throw new GiveUp();
      }
      this.at++;
      entries.push({ key: key.key, line: line.number, value: this.value(line, key.rest, indent) });
    }
    return { type: "map", line: first.number, entries };
  }

  private sequence(indent: number): Node {
    const items: Item[] = [];
    const first = this.peek() as Line;
    for (let line = this.peek(); line && line.indent === indent && isItem(line.content); line = this.peek()) {
      const rest = line.content.slice(1).trimStart();
      let value: Node | null;
      if (rest === "" || rest.startsWith("#")) {
        this.at++;
        value = this.block(indent + 1);
      } else {
        // The item's content as a line of its own, at its column: `- key: v`, `- - x`, `- v`.
        const column = line.indent + (line.content.length - rest.length);
        this.lines[this.at] = { number: line.number, indent: column, content: rest };
        const inner = this.peek() as Line;
        value = isItem(rest) || keyOf(rest) !== undefined ? this.block(column) : null;
        if (value === null) {
          this.at++;
          value = this.scalar(inner, rest, indent);
        }
      }
      // The full parser counts only items with a value; js-yaml counts `-` alone as null.
      if (value === null) throw new GiveUp();
      items.push({ line: line.number, value });
    }
    if (this.peek() && (this.peek() as Line).indent > indent) throw new GiveUp();
    return { type: "seq", line: first.number, items };
  }

  /** The value after `key:` on a line of a mapping at `indent`. */
  private value(line: Line, rest: string, indent: number): Node | null {
    const bare = stripProperties(rest);
    if (bare === "" || bare.startsWith("#")) {
      const next = this.peek();
      // A list may stand at its key's indentation; anything else below a key is indented more.
      if (next && next.indent === indent && isItem(next.content)) return this.sequence(indent);
      return this.block(indent + 1);
    }
    return this.scalar(line, bare, indent);
  }

  /** A value that starts and, but for a block scalar's body, ends on `line`. */
  private scalar(line: Line, text: string, parentIndent: number): Node {
    const first = text[0];
    if (first === "|" || first === ">") {
      if (!/^[|>][-+1-9]*(\s+#.*)?$/.test(text)) throw new GiveUp();
      // The body: every line indented more than the node that holds the block scalar.
      while ((this.peek()?.indent ?? -1) > parentIndent) this.at++;
      return { type: "scalar", line: line.number };
    }
    if (first === "[" || first === "{") {
      if (!closesOnItsLine(text)) throw new GiveUp();
      this.noContinuation(parentIndent);
      return { type: "flow", line: line.number };
    }
    if (first === '"' || first === "'") {
      if (quotedEnd(text) === undefined) throw new GiveUp();
    } else if (first === "*" || /^[-?:,\]}%@`](\s|$)/.test(text) || /^[%@`]/.test(text)) {
      throw new GiveUp();
    }
    this.noContinuation(parentIndent);
    return { type: "scalar", line: line.number };
  }

  /** A plain scalar continued on the next lines (or anything else indented under a scalar) is not read here. */
  private noContinuation(parentIndent: number): void {
    if ((this.peek()?.indent ?? -1) > parentIndent) throw new GiveUp();
  }
}

const isItem = (content: string) => content === "-" || content.startsWith("- ") || content.startsWith("-\t");

/** A line's key (resolved as the full parser resolves a scalar key) and what follows its colon. */
function keyOf(content: string): { key: string; rest: string } | undefined {
  const first = content[0];
  if (first === '"' || first === "'") {
    const end = quotedEnd(content);
    if (end === undefined) return undefined;
    const after = content.slice(end).trimStart();
    if (!after.startsWith(":") || !(after.length === 1 || /\s/.test(after[1] as string))) return undefined;
    const key = first === "'" ? content.slice(1, end - 1).replaceAll("''", "'") : doubleQuoted(content, end);
    if (key === undefined) throw new GiveUp();
    return { key, rest: after.slice(1).trim() };
  }
  // `-`, `?` and `:` start a plain scalar when a non-space follows them (`-x: 1`).
  const plainIndicator = "-?:".includes(first ?? "") && /\S/.test(content[1] ?? " ");
  if (first === undefined || ("-?:,[]{}#&*!|>%@`".includes(first) && !plainIndicator)) {
    if (first === "?" || first === "&" || first === "!" || first === "*") {
      // An explicit key, or a key with an anchor, tag or alias: not read here.
      if (/^[?&!*]\S*\s+.*:(\s|$)/.test(content) || content === "?") throw new GiveUp();
    }
    return undefined;
  }
  for (let i = 0; i < content.length; i++) {
    const char = content[i];
    if (char === "#" && i > 0 && /\s/.test(content[i - 1] as string)) return undefined;
    if (char === ":" && (i + 1 === content.length || /\s/.test(content[i + 1] as string))) {
      const key = content.slice(0, i).trimEnd();
      if (key === "<<") throw new GiveUp();
      return { key, rest: content.slice(i + 1).trim() };
    }
  }
  return undefined;
}

/** Anchors and tags before a value: `&base`, `!!str`, `!custom`. */
function stripProperties(rest: string): string {
  let text = rest;
  while (text.startsWith("&") || text.startsWith("!")) {
    const space = text.search(/\s/);
    text = space === -1 ? "" : text.slice(space).trimStart();
  }
  return text;
}

/** Where a quoted scalar that starts the text ends (the index after its closing quote), if on this line. */
function quotedEnd(text: string): number | undefined {
  const quote = text[0];
  for (let i = 1; i < text.length; i++) {
    if (quote === '"' && text[i] === "\\") {
      i++;
    } else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") {
        i++;
        continue;
      }
      const after = text.slice(i + 1).trimStart();
      return after === "" || after.startsWith(":") || after.startsWith("#") ? i + 1 : undefined;
    }
  }
  return undefined;
}

/** A double-quoted key's value; escapes other than `\"` and `\\` are left to the full parser. */
function doubleQuoted(content: string, end: number): string | undefined {
  const inner = content.slice(1, end - 1);
  if (/\\[^"\\]/.test(inner)) return undefined;
  return inner.replace(/\\(["\\])/g, "$1");
}

/** Whether a flow collection closes on its line: brackets balanced outside quotes, nothing but a comment after. */
function closesOnItsLine(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"' || char === "'") {
      const end = quotedEnd(text.slice(i));
      if (end === undefined) {
        // A quoted scalar inside a flow collection ends at its quote whatever follows.
        const close = text.indexOf(char, i + 1);
        if (close === -1) return false;
        i = close;
        continue;
      }
      i += end - 1;
    } else if (char === "[" || char === "{") {
      depth++;
    } else if (char === "]" || char === "}") {
      depth--;
      if (depth === 0) {
        const after = text.slice(i + 1).trim();
        return after === "" || after.startsWith("#");
      }
    }
  }
  return false;
}
