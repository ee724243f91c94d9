import { load as loadYaml } from "js-yaml";
import { CST, LineCounter, Parser, parseAllDocuments } from "yaml";
import { FieldPath } from "../base/field-path.js";
import { InputError } from "./input-error.js";
import { repeatedKeys } from "./repeated-keys.js";
import { type LineTree, lineAlong, scanBlockYaml } from "./yaml-lines.js";
import { readPlainBlockYaml } from "./yaml-plain-block.js";
import { type ReadingDifference, readDocument, type YamlReader } from "./yaml-readings.js";

/** One object read from a manifest file, with what it takes to point at its fields. */
export interface Manifest {
  file: string;
  object: Record<string, unknown>;
  /**
   * 1-based line of a field (`spec.config.replicas`), or of its nearest ancestor present in the file;
   * for "" the object's first field.
   */
  lineOf(field?: FieldPath): number;
  /** Scalars kubectl (YAML 1.1) and GitOps tools (YAML 1.2) read differently, with paths in the object. */
  readings: ReadingDifference[];
  /**
   * Set when the plain block reader read the object's document (no alias, no tag, nesting under its 50
   * levels): a bound on the object's JSON size, from the document's length (`plainJsonBytesAtMost`).
   */
  jsonBytesAtMost?: number;
}

/**
 * A bound on the JSON size, in bytes, of any request a client builds from an object the plain block
 * reader read from `textLength` characters, kubectl's last-applied annotation (the object written again,
 * as a JSON string inside it) and the namespace it fills in included. Each character of such a document
 * is printable ASCII; a scalar of n characters is at most 24 characters of JSON as a number (`~` is
 * `null`, `1e300` is `1e+300`), or 2n + 2 as a string (`"` and `\` escaped), 6n + 2 as Go writes it
 * (`<` is `\u003c`), 7n + 4 once more escaped inside the annotation; a key or item costs its `:` or `-`
 * and a line. 64 per character is a wide margin over all of them together, and the constant covers what
 * a client adds (namespace, the annotation's key). Held to writeJson by test/manifests/plain-bounds.test.ts.
 */
export function plainJsonBytesAtMost(textLength: number): number {
  return 64 * textLength + 4096;
}

/** A document of nothing but markers, comments and blank lines: no object, as kubectl reads it. */
const blank = /^(?:(?:---|\.\.\.)?[ \t]*(?:#.*)?(?:\r?\n|$))*$/;

/** One YAML document of a file: its text (from its `---` line) and the file line it starts on. */
export interface Chunk {
  text: string;
  firstLine: number;
}

/**
 * Every object in a YAML (or JSON) text, multi-document aware; the items of a `kind: List` count as
 * objects (and those of a KRM ResourceList); empty documents are skipped. Values come from js-yaml, three times faster than a parser
 * that keeps source positions, or, for the plainest block YAML, from a reader that gives js-yaml's
 * value four to five times cheaper (`plainReader`; off, js-yaml reads every such document: the
 * benchmark's parse-only baseline); positions are parsed only for a document a finding points into.
 * A syntax error is an InputError naming file and line.
 */
export function parseManifests(
  file: string,
  text: string,
  reader: YamlReader = "gitops",
  plainReader = true,
): Manifest[] {
  const chunks = documentChunks(text);
  const differences: ReadingDifference[][] = [];
  // The documents the plain block reader read: their objects' sizes and first lines need no walk.
  const plain: boolean[] = [];
  const values = chunks.map((chunk, index) => {
    try {
      if (blank.test(chunk.text)) return null;
      const readings = readDocument(chunk.text, reader);
      if (readings.problem !== undefined)
        throw new InputError(file, chunk.firstLine, `kubectl (YAML 1.1) cannot read it: ${readings.problem}`);
      differences[index] = readings.differences;
      if (readings.value !== undefined) {
        // The Go readings keep a repeated key's last value silently: named here as below.
        differences[index] = [...readings.differences, ...repeatedKeysIn(chunk.text)];
        return readings.value;
      }
      // Only where the readings agree with js-yaml (the scan above) does its value, or the plain
      // reader's (the same value), stand.
      const read = plainReader ? readPlainBlockYaml(chunk.text) : undefined;
      if (read !== undefined) {
        plain[index] = true;
        return read;
      }
      return loadYaml(chunk.text);
    } catch (error) {
      // js-yaml stops at 100 levels of nesting (its maxDepth): said here with the line, rather than
      // by the slower parser below, which recurses until the stack is exhausted.
      const mark = (error as { mark?: { line?: number } }).mark;
      if (/nesting exceeded maxDepth/.test(String(error)) || error instanceof RangeError) {
        const line = chunk.firstLine + (mark?.line ?? 0);
        throw new InputError(file, line, "nested too deeply: the YAML reader stops at 100 levels");
      }
      if (error instanceof InputError) throw error;
      if (/duplicated mapping key/.test(String(error))) {
        // kubectl keeps a repeated key's last value: read so, each repeated key a warning at its lines.
        differences[index] = [...(differences[index] ?? []), ...repeatedKeys(chunk.text)];
        return loadYaml(chunk.text, { json: true });
      }
      syntaxError(file, text);
      const line = mark?.line === undefined ? undefined : chunk.firstLine + mark.line;
      throw new InputError(file, line, (error as Error).message.split("\n")[0] ?? "");
    }
  });
  return chunks.flatMap((chunk, index) =>
    manifestsOf(file, chunk, values[index], differences[index] ?? [], plain[index] === true),
  );
}

/**
 * The repeated keys of a document the Go readings read: js-yaml finds whether there are any (it
 * refuses them), the slower positional parser where they are.
 */
function repeatedKeysIn(text: string): ReadingDifference[] {
  try {
    loadYaml(text);
    return [];
  } catch (error) {
    return /duplicated mapping key/.test(String(error)) ? repeatedKeys(text) : [];
  }
}

function manifestsOf(
  file: string,
  chunk: Chunk,
  value: unknown,
  readings: ReadingDifference[],
  plain: boolean,
): Manifest[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "a list" : typeof value;
    throw new InputError(file, chunk.firstLine, `a manifest must be an object, not ${what}`);
  }
  const record = value as Record<string, unknown>;
  let blockLines: LineTree | undefined | typeof unread = unread;
  let source: SyntaxTree | undefined;
  // Read on first use only: most objects have no finding to locate. The line scanner answers for
  // block YAML; the parser that builds a syntax tree, a hundred times slower, for the rest.
  const located = (prefix: string[], field = FieldPath.empty) => {
    // The object's own line (every object's, in `validate -o json`): in a document the plain block
    // reader read, a block map's first key is its first line that is no blank, comment or `---`.
    if (plain && prefix.length === 0 && field.isEmpty)
      return chunk.firstLine - 1 + firstContentLine(chunk.text);
    const steps = [...prefix, ...field.segments];
    if (blockLines === unread) blockLines = scanBlockYaml(chunk.text);
    const scanned = blockLines === undefined ? undefined : lineAlong(blockLines, steps, field.isEmpty);
    if (scanned !== undefined) return chunk.firstLine - 1 + scanned;
    source ??= concreteSyntax(chunk.text);
    const line = lineInSyntaxTree(source, steps, field.isEmpty);
    return line === undefined ? chunk.firstLine : chunk.firstLine - 1 + line;
  };
  const items = isList(record) && Array.isArray(record.items) ? record.items : undefined;
  const bound = plain ? { jsonBytesAtMost: plainJsonBytesAtMost(chunk.text.length) } : {};
  if (!items) return [{ file, object: record, lineOf: (field) => located([], field), readings, ...bound }];
  return items.flatMap((item, index) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? [
          {
            file,
            object: item as Record<string, unknown>,
            lineOf: (field?: FieldPath) => located(["items", String(index)], field),
            ...bound,
            readings: readings.flatMap((r) => {
              const [items, at, ...rest] = r.field.steps;
              const inItem =
                items?.as === "field" && items.name === "items" && at?.as === "index" && at.index === index;
              return inItem && rest.length > 0 ? [{ ...r, field: FieldPath.empty.along(rest) }] : [];
            }),
          },
        ]
      : [],
  );
}

/**
 * A `kind: List`, or the ResourceList that kustomize and kpt hand a KRM function (its `items` are the
 * objects; its `functionConfig` is the function's own configuration, not an object to judge).
 */
function isList(record: Record<string, unknown>): boolean {
  return record.kind === "List" || isResourceList(record);
}

export function isResourceList(value: unknown): boolean {
  const record = value as Record<string, unknown> | null;
  return record?.kind === "ResourceList" && record.apiVersion === "config.kubernetes.io/v1";
}

/** Splits at `---` lines, which always start a document at column 0 (block scalars are indented). */
export function documentChunks(text: string): Chunk[] {
  const lines = text.split("\n");
  const chunks: Chunk[] = [];
  let start = 0;
  for (let i = 1; i <= lines.length; i++) {
    if (i === lines.length || /^---(?:[ \t]|$)/.test(lines[i] ?? "")) {
      chunks.push({ text: lines.slice(start, i).join("\n"), firstLine: start + 1 });
      start = i;
    }
  }
  return chunks;
}

const unread = Symbol("unread");

/**
 * The 1-based line of a document's first content: the first line that is not blank, not a whole-line
 * comment, nor the document's opening `---` (the lines the plain block reader skips).
 */
export function firstContentLine(text: string): number {
  let start = 0;
  for (let line = 1; ; line++) {
    const end = text.indexOf("\n", start);
    const raw = text.slice(start, end === -1 ? text.length : end);
    const content = raw.trimStart();
    if (content !== "" && content.charCodeAt(0) !== 0x23 && !(line === 1 && raw === "---")) return line;
    if (end === -1) return line;
    start = end + 1;
  }
}

type SyntaxTree = { root: CST.Token | undefined; lines: LineCounter };

/**
 * The 1-based line, in a document's text, of the key (or list item) deepest along `steps`, from the
 * document's concrete syntax tree, parsed once (what the line scanner must agree with); undefined if
 * it has none.
 */
export function syntaxTreeLines(
  text: string,
): (steps: string[], firstKeyOfLast: boolean) => number | undefined {
  const tree = concreteSyntax(text);
  return (steps, firstKeyOfLast) => lineInSyntaxTree(tree, steps, firstKeyOfLast);
}

function lineInSyntaxTree(tree: SyntaxTree, steps: string[], firstKeyOfLast: boolean): number | undefined {
  const offset = offsetAt(tree.root, steps, firstKeyOfLast);
  return offset === undefined ? undefined : tree.lines.linePos(offset).line;
}

/** The document's concrete syntax tree: positions without building values, half the cost of a Document. */
function concreteSyntax(text: string): SyntaxTree {
  const lines = new LineCounter();
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    if (token.type === "document") return { root: token.value, lines };
  }
  return { root: undefined, lines };
}

/** Throws the first syntax error of the text, located by a parser that reports positions. */
function syntaxError(file: string, text: string): void {
  const lines = new LineCounter();
  for (const document of parseAllDocuments(text, { lineCounter: lines })) {
    const [error] = document.errors;
    if (error) {
      const reason = (error.message.split("\n")[0] ?? "").replace(/:$/, "");
      throw new InputError(file, lines.linePos(error.pos[0]).line, reason);
    }
  }
}

/**
 * The offset of the key (or list item) deepest along `steps`, so a line points at `replicas:`; with
 * `firstKeyOfLast`, of the first key inside it (an object's line is its first field's).
 */
function offsetAt(root: CST.Token | undefined, steps: string[], firstKeyOfLast: boolean): number | undefined {
  let node = root;
  let offset = node?.offset;
  for (const step of steps) {
    const item = childItem(node, step);
    if (!item) break;
    offset = item.key?.offset ?? item.value?.offset ?? offset;
    node = item.value;
  }
  if (firstKeyOfLast && node && (node.type === "block-map" || node.type === "flow-collection")) {
    const first = node.items.find((item) => item.key);
    offset = first?.key?.offset ?? offset;
  }
  return offset;
}

function childItem(node: CST.Token | undefined, step: string): CST.CollectionItem | undefined {
  if (!node) return undefined;
  const isSequence =
    node.type === "block-seq" || (node.type === "flow-collection" && node.start.source === "[");
  if (isSequence) return node.items.filter((item) => item.value)[Number(step)];
  if (node.type !== "block-map" && node.type !== "flow-collection") return undefined;
  return node.items.find((item) => item.key && CST.resolveAsScalar(item.key)?.value === step);
}
