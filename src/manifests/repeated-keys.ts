import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { FieldPath } from "../base/field-path.js";
import type { ReadingDifference } from "./yaml-readings.js";

/** As deep as js-yaml reads (its maxDepth): a document deeper than that is refused anyway. */
const maxDepth = 100;

/**
 * Keys a document's maps repeat, with their lines: kubectl (and the API server after it) keeps the last
 * value, where a YAML parser that insists on unique keys refuses the file. Read only for a document
 * js-yaml refused for it (rare): the parser that keeps positions is slow.
 */
export function repeatedKeys(text: string): ReadingDifference[] {
  const lines = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  const found: ReadingDifference[] = [];
  const visit = (node: unknown, at: FieldPath, depth: number) => {
    if (depth > maxDepth) return;
    if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) visit(item, at.index(index), depth + 1);
    }
    if (!isMap(node)) return;
    const pairs = node.items.flatMap((pair) =>
      isScalar(pair.key)
        ? [{ key: String(pair.key.value), keyNode: pair.key as Node, value: pair.value }]
        : [],
    );
    const linesOf = new Map<string, number[]>();
    for (const { key, keyNode } of pairs) {
      const line = lines.linePos(keyNode.range?.[0] ?? 0).line;
      linesOf.set(key, [...(linesOf.get(key) ?? []), line]);
    }
    for (const [key, seen] of linesOf) {
      if (seen.length < 2) continue;
      found.push({
        field: at.child(key),
        message: `the key is repeated (lines ${seen.join(", ")}): read as kubectl and the API server read it, the last value`,
      });
    }
    // Each key's value is its last one's.
    const last = new Map(pairs.map(({ key, value }) => [key, value]));
    for (const [key, value] of last) visit(value, at.child(key), depth + 1);
  };
  visit(document.contents, FieldPath.empty, 0);
  return found;
}
