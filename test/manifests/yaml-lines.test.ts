import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { dump, load } from "js-yaml";
import { documentChunks, syntaxTreeLines } from "../../src/manifests/manifests.js";
import { lineAlong, scanBlockYaml } from "../../src/manifests/yaml-lines.js";
import { corpusPath, withoutCorpus, yamlFiles } from "../support/corpus.js";
import { yamlStyles, yamlValues } from "../support/yaml-generators.js";

/** Every path to a value of a parsed document (keys and list positions), the document itself first. */
function pathsOf(value: unknown, prefix: string[] = [], out: string[][] = [], limit = 3000): string[][] {
  if (out.length >= limit) return out;
  out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) pathsOf(item, [...prefix, String(i)], out, limit);
  } else if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) pathsOf(child, [...prefix, key], out, limit);
  }
  return out;
}

/**
 * For one document: every path present, a missing key below each map and a position past each list,
 * with and without `firstKeyOfLast`; the scanner's line wherever it answers against the syntax tree's.
 * Returns how many lines were compared (0 when the scanner gave up on the document).
 */
function agreeOn(text: string): number {
  const tree = scanBlockYaml(text);
  if (tree === undefined) return 0;
  let value: unknown;
  try {
    value = load(text);
  } catch {
    return 0;
  }
  let compared = 0;
  const syntaxTreeLine = syntaxTreeLines(text);
  for (const path of pathsOf(value)) {
    for (const steps of [path, [...path, "absent-key"], [...path, "999"]]) {
      for (const first of [false, true]) {
        const scanned = lineAlong(tree, steps, first);
        if (scanned === undefined) continue;
        assert.equal(scanned, syntaxTreeLine(steps, first), `${JSON.stringify(steps)} ${first}\n${text}`);
        compared++;
      }
    }
  }
  return compared;
}

describe("the block YAML line scanner", () => {
  it("points at keys, list items and compact items as the syntax tree does", () => {
    const text = [
      "---",
      "apiVersion: v1 # a comment",
      "kind: Module",
      "metadata:",
      "  name: redis",
      "  labels: {a: b}",
      "spec:",
      "  'quoted key': 1",
      '  "double": &anchor 2',
      "  script: |",
      "    echo a: b",
      "    # not a comment",
      "  list:",
      "  - name: first",
      "    value: 1",
      "  -",
      "    name: second",
      "  - - nested",
      "    - deeper",
      "  tagged: !!str 3",
    ].join("\n");
    const tree = scanBlockYaml(text);
    assert.ok(tree, "block YAML is read");
    const cases: [string[], boolean, number][] = [
      [[], true, 2],
      [["spec"], false, 7],
      [["spec"], true, 8],
      [["spec", "quoted key"], false, 8],
      [["spec", "double"], false, 9],
      [["spec", "script"], false, 10],
      [["spec", "list", "0"], false, 14],
      [["spec", "list", "0", "value"], false, 15],
      [["spec", "list", "1"], false, 17],
      [["spec", "list", "1", "name"], false, 17],
      [["spec", "list", "2", "1"], false, 19],
      [["spec", "tagged"], false, 20],
      [["spec", "missing", "deeper"], false, 7],
      [["metadata", "labels"], false, 6],
    ];
    for (const [steps, first, line] of cases) {
      assert.equal(lineAlong(tree, steps, first), line, JSON.stringify(steps));
      assert.equal(syntaxTreeLines(text)(steps, first), line, `the syntax tree: ${JSON.stringify(steps)}`);
    }
    assert.equal(lineAlong(tree, ["metadata", "labels", "a"], false), undefined, "into a flow map: not here");
  });

  it("gives up on what it does not read, whole documents at a time", () => {
    const unread = [
      "a: &x {b: 1}\nc: *x\n",
      "base: &b\n  x: 1\nother:\n  <<: *b\n",
      "key: a plain scalar\n  continued on the next line\n",
      'key: "a quoted scalar\n  on two lines"\n',
      "list:\n- a\n-\n- c\n",
      "? complex\n: key\n",
      "a:\n\tb: 1\n",
      "key: [1,\n  2]\n",
      "%YAML 1.2\n---\na: 1\n",
    ];
    for (const text of unread) assert.equal(scanBlockYaml(text), undefined, text);
    assert.equal(scanBlockYaml('{"apiVersion": "v1", "kind": "List"}\n'), undefined, "JSON");
  });

  it("agrees with the syntax tree on every path of the real manifests, CRDs and module trees in ../shared", {
    skip: withoutCorpus,
  }, () => {
    let documents = 0;
    let scanned = 0;
    let compared = 0;
    for (const root of ["forkspacer", "kyma", "addon-operator"].map((tree) => corpusPath(tree))) {
      for (const file of yamlFiles(root)) {
        for (const chunk of documentChunks(readFileSync(file, "utf8"))) {
          documents++;
          const lines = agreeOn(chunk.text);
          if (lines > 0) scanned++;
          compared += lines;
        }
      }
    }
    // Not vacuous: most real documents are block YAML the scanner reads.
    assert.ok(documents > 400, `${documents} documents`);
    assert.ok(scanned > documents * 0.6, `${scanned} of ${documents} documents scanned`);
    assert.ok(compared > 50_000, `${compared} lines compared`);
  });

  it("agrees with the syntax tree on js-yaml's output of any object, in any style", () => {
    const { key, value } = yamlValues(
      ["a", "name", "app.kubernetes.io/name", "with space", "x:y", "- dash", "#hash", "'q'", '"d"'],
      ["", "line\nbreaks\n", "a: b", "- x", "# c", "|", "*a", "&b", "{x}", "[1]", "true"],
      40,
    );
    let scanned = 0;
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), yamlStyles, (object, style) => {
        if (agreeOn(dump(object, style)) > 0) scanned++;
      }),
      { numRuns: 1500 },
    );
    assert.ok(scanned > 500, `only ${scanned} of 1500 documents scanned`);
  });
});
