import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseYaml, parseYamlInFull, type YamlNumbers } from "../../../src/go/yaml/dialects.js";
import { readGoPlainBlock } from "../../../src/go/yaml/plain-block.js";
import { documentChunks } from "../../../src/manifests/manifests.js";
import { corpusDir, withoutCorpus, yamlFiles } from "../../support/corpus.js";
import { Random } from "../../support/differential/random.js";
import { generateScalar } from "../../support/differential/yaml.js";
import { yamlScalars } from "./yaml-cases.js";

/**
 * `parseYaml` reads the plainest block YAML of a module section (yaml.v3) with its own reader
 * (src/go/yaml/plain-block.ts) instead of the `yaml` package. Wherever that reader gives a tree, the
 * answer must be the full parse's (deepStrictEqual: prototypes, bigints and -0 included; key order
 * compared too), and the parse charged the same; wherever the full parse refuses a text, the reader
 * must give up.
 */
function agrees(text: string, numbers: YamlNumbers = "float"): { read: boolean; problem?: string } {
  const read = readGoPlainBlock(text, "yaml.v3") !== undefined;
  const charged: number[] = [];
  const fullCharged: number[] = [];
  const fast = parseYaml(text, "yaml.v3", (chars) => charged.push(chars), numbers);
  const full = parseYamlInFull(text, "yaml.v3", (chars) => fullCharged.push(chars), numbers);
  try {
    assert.deepStrictEqual(fast, full);
    assert.equal(keyOrder(fast), keyOrder(full));
    assert.deepEqual(charged, fullCharged);
  } catch {
    return { read, problem: `read ${json(fast)}; the full parse ${json(full)}` };
  }
  return { read };
}

const json = (value: unknown) =>
  JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `${v}n` : v))?.slice(0, 300);

/** Every map's keys in order, so that a reordering is seen (deepStrictEqual ignores key order). */
function keyOrder(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(keyOrder).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([key, child]) => `${JSON.stringify(key)}:${keyOrder(child)}`)
      .join(",")}}`;
  return "";
}

const inserts = [
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
  "!!int ",
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
  "<<: ",
  "null",
  "0",
  "-0",
  ".5",
  ".inf",
  "1e3",
  "0x1F",
  "0755",
  "9223372036854775808",
  "2001-12-14",
  "__proto__",
  "yes",
  "é",
  "\n",
  "\n  ",
  "---",
  "...",
];

/** A random edit of one line: the kind of change that makes a text one the reader must give up on. */
function mutate(text: string, random: Random): string {
  const lines = text.split("\n");
  const at = random.int(0, Math.max(0, lines.length - 1));
  const line = lines[at] ?? "";
  const column = random.int(0, line.length);
  const insert = random.chance(0.2) ? generateScalar(random) : random.pick(inserts);
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

/** A ConfigMap section as the fuzz grows them, and sections of the shapes real ConfigMaps hold. */
const sections = [
  "modules:\n  publicDomainTemplate: '%s.example.com'\n\n# 1\n",
  "logLevel: Debug\nhighAvailability: false\nreplicas: 2\n",
  'nodeSelector:\n  node-role.kubernetes.io/master: ""\ntolerations:\n- key: dedicated\n  operator: Exists\n',
  "storageClass: ceph-ssd\nretentionDays: 15\nlongtermRetentionDays: 0\n",
  "auth:\n  externalAuthentication:\n    authURL: https://dex.example.com/auth\n",
];

const corpusTexts = () =>
  withoutCorpus
    ? []
    : yamlFiles(corpusDir).flatMap((file) => {
        const text = readFileSync(file, "utf8");
        return [text, ...documentChunks(text).map((chunk) => chunk.text)];
      });

describe("module sections' plain block YAML reader: the full parse's answer, or none", () => {
  it("on every YAML file and document in ../shared, and on sections", { skip: withoutCorpus }, () => {
    const texts = [...sections, ...corpusTexts()];
    let read = 0;
    const problems: string[] = [];
    for (const text of texts) {
      for (const numbers of ["float", "json"] as const) {
        const result = agrees(text, numbers);
        if (result.read && numbers === "float") read++;
        if (result.problem) problems.push(`${json(text.slice(0, 200))}: ${result.problem}`);
      }
    }
    assert.deepEqual(problems.slice(0, 10), []);
    // Not vacuous: a good share of real documents is read without the parser.
    assert.ok(texts.length > 400, `${texts.length} texts`);
    assert.ok(read > texts.length / 4, `${read} of ${texts.length} texts read`);
  });

  it("on random one-line edits of sections and of the corpus's documents", () => {
    const random = new Random(4141);
    const sources = [...sections, ...corpusTexts()].filter(
      (text) => text.length < 20_000 && readGoPlainBlock(text, "yaml.v3") !== undefined,
    );
    let read = 0;
    const problems: string[] = [];
    for (let i = 0; i < 6000; i++) {
      let text = random.pick(sources);
      for (let edits = random.int(1, 3); edits > 0; edits--) text = mutate(text, random);
      const result = agrees(text, random.chance(0.5) ? "float" : "json");
      if (result.read) read++;
      if (result.problem) problems.push(`${json(text)}: ${result.problem}`);
    }
    assert.deepEqual(problems.slice(0, 5), []);
    // Both ways taken: many edited texts are still read, many are given up on.
    assert.ok(read > 1000 && read < 5500, `${read} of 6000 edited texts read`);
  });

  it("on generated scalars and the dialect table's scalars as values, list items and keys", () => {
    const random = new Random(41_000);
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
      (s: string) => `x:\n  y: 1\n  ${s}: 2`,
    ];
    const scalars = yamlScalars.map(([scalar]) => scalar);
    let read = 0;
    const problems: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const scalar = random.chance(0.3) ? random.pick(scalars) : generateScalar(random);
      const text = random.pick(places)(scalar);
      const result = agrees(text, random.chance(0.5) ? "float" : "json");
      if (result.read) read++;
      if (result.problem) problems.push(`${json(text)}: ${result.problem}`);
    }
    assert.deepEqual(problems.slice(0, 10), []);
    assert.ok(read > 1000, `only ${read} of 5000 texts read`);
  });

  it("gives up on what it does not read plainly: empty values, repeated keys, keys Go reads as no string", () => {
    for (const text of [
      "a:\n",
      "a: 1\na: 2\n",
      "1: a\n",
      "true: a\n",
      "null: a\n",
      "a: [1]\n",
      "a: {b: 1}\n",
      "a: |\n  x\n",
      "a: &x 1\nb: *x\n",
      "<<: {a: 1}\n",
      "a: 1 # c\n",
      "a: b\n  c\n",
      "  a: 1\n",
      "a:\tb\n",
      "a: 'it''s'\r\n",
      "%YAML 1.1\n---\na: 1\n",
    ])
      assert.equal(readGoPlainBlock(text, "yaml.v3"), undefined, JSON.stringify(text));
    // And reads these as Go does.
    const parsed = parseYaml("a: 'it''s'\nb: \"x\"\nc: 0755\nd:\n- 1_000\n- yes\n", "yaml.v3");
    assert.deepEqual(JSON.parse(JSON.stringify(parsed)), {
      value: { a: "it's", b: "x", c: 493, d: [1000, "yes"] },
    });
  });
});
