import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { dump, load } from "js-yaml";
import { documentChunks, parseManifests } from "../../src/manifests/manifests.js";
import { readPlainBlockYaml } from "../../src/manifests/yaml-plain-block.js";
import { corpusDir, withoutCorpus, yamlFiles } from "../support/corpus.js";
import { Random } from "../support/differential/random.js";
import { generateScalar } from "../support/differential/yaml.js";
import { helmModule } from "../support/modules.js";
import { yamlStyles, yamlValues } from "../support/yaml-generators.js";

/**
 * validate reads the plainest block YAML with its own reader (src/manifests/yaml-plain-block.ts) instead
 * of js-yaml. Wherever that reader gives a value, js-yaml must read the document to the same value
 * (deepStrictEqual: -0, NaN, key order and prototypes included; Object.keys order compared too);
 * wherever js-yaml refuses a document, the reader must give up. Whether js-yaml's value stands at all
 * (Go's readings may differ) is decided before, and held by yaml-fast-path.test.ts.
 */
function agrees(text: string): { read: boolean; problem?: string } {
  const fast = readPlainBlockYaml(text);
  if (fast === undefined) return { read: false };
  let slow: unknown;
  try {
    slow = load(text);
  } catch (error) {
    return {
      read: true,
      problem: `js-yaml refuses it (${String(error).split("\n")[0]}); read ${json(fast)}`,
    };
  }
  try {
    assert.deepStrictEqual(fast, slow);
    assert.equal(keyOrder(fast), keyOrder(slow));
  } catch {
    return { read: true, problem: `read ${json(fast)}; js-yaml ${json(slow)}` };
  }
  return { read: true };
}

const json = (value: unknown) => JSON.stringify(value)?.slice(0, 300);

/** Every map's keys in order, so that a reordering is seen (deepStrictEqual ignores key order). */
function keyOrder(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(keyOrder).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([key, child]) => `${JSON.stringify(key)}:${keyOrder(child)}`)
      .join(",")}}`;
  return "";
}

/** A random edit of one line: the kind of change that makes a document one the reader must give up on. */
function mutate(text: string, random: Random): string {
  const lines = text.split("\n");
  const at = random.int(0, Math.max(0, lines.length - 1));
  const line = lines[at] ?? "";
  const column = random.int(0, line.length);
  const insert = random.pick([
    " ",
    "  ",
    "#",
    " #",
    ":",
    ": ",
    "- ",
    "-",
    "'",
    '"',
    "''",
    "\\",
    "&a ",
    "*a",
    "!",
    "!!str ",
    "[",
    "]",
    "{}",
    "[]",
    "|",
    ">",
    "?",
    "%",
    "@",
    "`",
    "\t",
    "\r",
    "~",
    "null",
    "0",
    "-0",
    ".5",
    "1e3",
    "0x1F",
    "__proto__",
    "é",
    "\n",
    "\n  ",
    "---",
    "...",
    generateScalar(random),
  ]);
  switch (random.int(0, 5)) {
    case 0:
      lines[at] = line.slice(0, column) + insert + line.slice(column);
      break;
    case 1:
      lines[at] = line.slice(0, column) + line.slice(column + 1);
      break;
    case 2:
      lines[at] = ` ${line}`;
      break;
    case 3:
      lines[at] = line.replace(/^ /, "");
      break;
    case 4:
      lines.splice(at, 0, random.pick(lines));
      break;
    default:
      lines.splice(at, 1);
  }
  return lines.join("\n");
}

const corpusDocuments = () =>
  withoutCorpus
    ? []
    : yamlFiles(corpusDir).flatMap((file) =>
        documentChunks(readFileSync(file, "utf8")).map((chunk) => ({ file, ...chunk })),
      );

describe("validate's plain block YAML reader: js-yaml's value, or none", () => {
  it("on every YAML document in ../shared", { skip: withoutCorpus }, () => {
    let read = 0;
    const documents = corpusDocuments();
    const problems: string[] = [];
    for (const { file, text, firstLine } of documents) {
      const result = agrees(text);
      if (result.read) read++;
      if (result.problem) problems.push(`${file}:${firstLine}: ${result.problem}`);
    }
    assert.deepEqual(problems.slice(0, 10), []);
    // Not vacuous: a good share of real documents is read without js-yaml.
    assert.ok(documents.length > 400, `${documents.length} documents`);
    assert.ok(read > documents.length / 3, `${read} of ${documents.length} documents read`);
  });

  it("on random one-line edits of the corpus's documents and of a Module", () => {
    const random = new Random(3434);
    const sources = [dump(helmModule()), ...corpusDocuments().map((chunk) => chunk.text)].filter(
      (text) => readPlainBlockYaml(text) !== undefined,
    );
    let read = 0;
    const problems: string[] = [];
    for (let i = 0; i < 6000; i++) {
      let text = random.pick(sources);
      for (let edits = random.int(1, 3); edits > 0; edits--) text = mutate(text, random);
      const result = agrees(text);
      if (result.read) read++;
      if (result.problem) problems.push(`${json(text)}: ${result.problem}`);
    }
    assert.deepEqual(problems.slice(0, 5), []);
    // Both ways taken: many edited documents are still read, many are given up on.
    assert.ok(read > 1000 && read < 5500, `${read} of 6000 edited documents read`);
  });

  it("on generated scalars as values, list items and keys, at any indent", () => {
    const random = new Random(34_000);
    const places = [
      (s: string) => `a: ${s}`,
      (s: string) => `- ${s}`,
      (s: string) => `- a: ${s}`,
      (s: string) => `${s}: 1`,
      (s: string) => `- ${s}: 1`,
      (s: string) => `a:\n  b: ${s}\n  c:\n  - ${s}\nd: x`,
      (s: string) => `a:\n- b: 1\n  ${s}: 2\n-   c: ${s}`,
      (s: string) => `a: '${s}'`,
      (s: string) => `a: "${s}"`,
    ];
    let read = 0;
    const problems: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const text = random.pick(places)(generateScalar(random));
      const result = agrees(text);
      if (result.read) read++;
      if (result.problem) problems.push(`${json(text)}: ${result.problem}`);
    }
    assert.deepEqual(problems.slice(0, 10), []);
    assert.ok(read > 1000, `only ${read} of 4000 documents read`);
  });

  it("on js-yaml's output of any object, in any style", () => {
    const { value } = yamlValues(
      ["a", "name", "-1", "1", "0x1", "~", "null", "True", "__proto__", "a b", "a:b", "1.50", "-0"],
      ["yes", "0755", "1_000", "0x1F", ".inf", "-.inf", ".nan", "-0", "1e3", "~", "a: b", "a #b", "- x"],
      20,
    );
    let read = 0;
    fc.assert(
      fc.property(fc.oneof(value, fc.array(value, { maxLength: 4 })), yamlStyles, (item, options) => {
        const text = dump(item, options);
        const result = agrees(text);
        if (result.read) read++;
        assert.equal(result.problem, undefined, text);
      }),
      { numRuns: 3000 },
    );
    assert.ok(read > 300, `only ${read} of 3000 documents read`);
  });

  it("gives up on what it does not read, so that js-yaml says what is wrong", () => {
    for (const text of [
      "a: 1\na: 2",
      "a: |\n  x",
      "a: &x 1\nb: *x",
      "a: [1, 2]",
      "a: b\n  c",
      "a:\n    b: 1\n  c: 2",
      "- - a",
      "a: 'x\n  y'",
      "a: b # c",
      "a:\tb",
      "__proto__: 1",
      "--- a: 1",
      "a: é",
      "plain scalar",
    ])
      assert.equal(readPlainBlockYaml(text), undefined, text);
  });

  it("parseManifests gives the same objects with and without it", () => {
    const text = [helmModule(), { ...helmModule(), spec: { hibernated: "yes" } }, { a: [1, { b: null }] }]
      .map((object) => dump(object))
      .join("---\n");
    const read = (plainReader: boolean) =>
      parseManifests("m.yaml", text, "gitops", plainReader).map((manifest) => ({
        object: manifest.object,
        readings: manifest.readings.map((reading) => [String(reading.field), reading.message]),
      }));
    assert.deepStrictEqual(read(true), read(false));
    assert.equal(read(true).length, 3);
  });
});
