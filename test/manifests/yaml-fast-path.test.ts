import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { dump, load } from "js-yaml";
import { parseYaml } from "../../src/go/yaml/dialects.js";
import { documentChunks } from "../../src/manifests/manifests.js";
import { mayReadDifferently } from "../../src/manifests/yaml-readings.js";
import { corpusDir, withoutCorpus, yamlFiles } from "../support/corpus.js";
import { Random } from "../support/differential/random.js";
import { generateScalar } from "../support/differential/yaml.js";
import { yamlStyles, yamlValues } from "../support/yaml-generators.js";

/**
 * validate reads a document with js-yaml, about a hundred times cheaper than the port of Go's two
 * readings (src/go/yaml/dialects.ts), only where the cheap scan of src/manifests/yaml-readings.ts finds
 * nothing the readings may differ on. This holds that shortcut to the port: wherever the scan lets
 * js-yaml's value stand, both readings (kubectl's sigs.k8s.io/yaml, the GitOps kyaml) give that value,
 * or both refuse the document as js-yaml does. The port itself is held to Go by
 * test/go/yaml/yaml-differential.e2e.test.ts.
 */
const json = (value: unknown) => JSON.stringify(value);

/** Whether the shortcut was taken, and if so that it read as the port reads. */
function shortcutAgrees(text: string): { shortcut: boolean; problem?: string } {
  if (mayReadDifferently(text)) return { shortcut: false };
  let fast: { value: unknown } | { error: string };
  try {
    fast = { value: load(text) };
  } catch (error) {
    fast = { error: String(error) };
  }
  for (const dialect of ["sigs", "kyaml"] as const) {
    const port = parseYaml(text, dialect);
    // A document of comments only: validate skips it before reading (no object, as kubectl reads it).
    if ("error" in fast && /input is empty/.test(fast.error) && "value" in port && port.value === null)
      continue;
    if ("error" in fast) {
      // A repeated key: js-yaml refuses it, as kyaml does; sigs.k8s.io/yaml keeps the last value and
      // validate refuses the document on its own (a finding, not a reading).
      if ("problem" in port || (dialect === "sigs" && /duplicated mapping key/.test(fast.error))) continue;
      return { shortcut: true, problem: `${dialect} reads ${json(port.value)}; js-yaml: ${fast.error}` };
    }
    if (!("value" in port))
      return {
        shortcut: true,
        problem: `${dialect} refuses it (${port.problem}); js-yaml reads ${json(fast.value)}`,
      };
    if (json(port.value) !== json(fast.value))
      return { shortcut: true, problem: `${dialect} reads ${json(port.value)}; js-yaml ${json(fast.value)}` };
  }
  return { shortcut: true };
}

describe("validate's YAML shortcut: js-yaml's value only where Go's readings give the same", () => {
  it("on every YAML document in ../shared", { skip: withoutCorpus }, () => {
    let documents = 0;
    let shortcuts = 0;
    const problems: string[] = [];
    for (const file of yamlFiles(corpusDir)) {
      for (const chunk of documentChunks(readFileSync(file, "utf8"))) {
        if (chunk.text.trim() === "") continue;
        documents++;
        const { shortcut, problem } = shortcutAgrees(chunk.text);
        if (shortcut) shortcuts++;
        if (problem) problems.push(`${file}:${chunk.firstLine}: ${problem}`);
      }
    }
    assert.deepEqual(problems.slice(0, 10), []);
    // Not vacuous: most real documents take the shortcut.
    assert.ok(documents > 400, `${documents} documents`);
    assert.ok(shortcuts > documents / 2, `${shortcuts} of ${documents} documents took the shortcut`);
  });

  it("on generated scalars in every place, list items of maps among them", () => {
    const random = new Random(34);
    const places = [
      (s: string) => `a: ${s}`,
      (s: string) => `- ${s}`,
      (s: string) => `- ${s}: 1`,
      (s: string) => `- a: ${s}`,
      (s: string) => `- name: x\n  ${s}: 1`,
      (s: string) => `-  ${s}: 1`,
      (s: string) => `- - ${s}: 1`,
      (s: string) => `a:\n- ${s}: 1\n- b: ${s}`,
      (s: string) => `a:\n  -\t${s}: 1`,
      (s: string) => `[${s}]`,
      (s: string) => `{${s}: 1}`,
      (s: string) => `${s}: 1`,
      (s: string) => `-${s}: 1`,
    ];
    let shortcuts = 0;
    const problems: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const text = random.pick(places)(generateScalar(random));
      const { shortcut, problem } = shortcutAgrees(text);
      if (shortcut) shortcuts++;
      if (problem) problems.push(`${json(text)}: ${problem}`);
    }
    assert.deepEqual(problems.slice(0, 10), []);
    assert.ok(shortcuts > 400, `only ${shortcuts} of 4000 documents took the shortcut`);
  });

  it("on js-yaml's output of any object, in any style", () => {
    const { value } = yamlValues(
      ["a", "name", "- dash", "-1", "-", "yes", "on", "1", "0x1", "~", "null", "<<", "2025-01-01"],
      ["yes", "no", "0755", "1_000", "0x1F", "1:20", ".inf", "2025-01-01", "- x", "-1", "~"],
      20,
    );
    let shortcuts = 0;
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), yamlStyles, (items, options) => {
        // A list of maps at the top, as a kind: List and every `- name:` list hold them.
        const { shortcut, problem } = shortcutAgrees(dump(items, options));
        if (shortcut) shortcuts++;
        assert.equal(problem, undefined);
      }),
      { numRuns: 1500 },
    );
    assert.ok(shortcuts > 300, `only ${shortcuts} of 1500 documents took the shortcut`);
  });
});
