import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { dump } from "js-yaml";
import { writeJson } from "../../src/base/exact-json.js";
import { limits } from "../../src/base/limits.js";
import { inputBoundProblem } from "../../src/manifests/input-bounds.js";
import { type Manifest, parseManifests, plainJsonBytesAtMost } from "../../src/manifests/manifests.js";
import { readPlainBlockYaml } from "../../src/manifests/yaml-plain-block.js";
import { type Client, sentBy } from "../../src/offline/client.js";
import { corpusDir, withoutCorpus, yamlFiles } from "../support/corpus.js";
import { Random } from "../support/differential/random.js";
import { customModule, helmModule } from "../support/modules.js";

/**
 * What validate takes from the plain block reader without walking the object (src/manifests/manifests.ts):
 * an object's own line (the first content line of its document), and a bound on the JSON size of any
 * body a client builds from it, which lets the input bounds' walk and the request's size check be skipped.
 */

function parsed(file: string, text: string, plainReader: boolean): Manifest[] | undefined {
  try {
    return parseManifests(file, text, "gitops", plainReader);
  } catch {
    return undefined;
  }
}

const clients: Client[] = ["gitops", "kubectl", "kubectl-create"];

/** The largest JSON any client sends for the object, in bytes. */
function sentBytes(object: Record<string, unknown>): number {
  return Math.max(
    ...clients.flatMap((client) =>
      [true, false].map((namespaced) => Buffer.byteLength(writeJson(sentBy(client, object, namespaced)))),
    ),
  );
}

/** Scalars that write out longest for their length: numbers, nulls, characters JSON and Go escape. */
const costly = [
  "~",
  "1e300",
  "-1e-300",
  ".5",
  "1_0",
  "0x1",
  ".inf",
  "'<>&'",
  `'"\\'`,
  `'\\\\'`,
  '"<>"',
  "''",
];

/** A document of random keys and scalars (costly ones among them), nested in maps and lists. */
function costlyDocument(random: Random): string {
  const lines: string[] = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: x"];
  if (random.chance(0.5)) lines.push("  annotations:", `    a: ${random.pick(costly)}`);
  const node = (indent: string, depth: number) => {
    for (let i = random.int(1, 6); i > 0; i--) {
      const key = random.pick(["a", "1e300", "0x1", "b_c", "k"]);
      const dashed = random.chance(0.3);
      if (depth < 4 && random.chance(0.4)) {
        lines.push(`${indent}${key}${i}:`);
        if (dashed) {
          for (let j = random.int(1, 4); j > 0; j--) lines.push(`${indent}- ${random.pick(costly)}`);
        } else node(`${indent}  `, depth + 1);
      } else lines.push(`${indent}${key}${i}: ${random.pick(costly)}`);
    }
  };
  lines.push("data:");
  node("  ", 0);
  return lines.join("\n");
}

describe("what validate takes from the plain block reader without a walk", () => {
  it("an object's line is the one the line scanner and the parser give, on every file in ../shared", {
    skip: withoutCorpus,
  }, () => {
    let plain = 0;
    let objects = 0;
    const differ: string[] = [];
    for (const file of yamlFiles(corpusDir)) {
      const text = readFileSync(file, "utf8");
      const fast = parsed(file, text, true);
      const slow = parsed(file, text, false);
      if (!fast || !slow) continue;
      assert.equal(fast.length, slow.length, file);
      for (const [i, manifest] of fast.entries()) {
        objects++;
        if (manifest.jsonBytesAtMost !== undefined) plain++;
        const line = manifest.lineOf();
        const expected = slow[i]?.lineOf();
        if (line !== expected) differ.push(`${file}: object ${i}: line ${line}, expected ${expected}`);
      }
    }
    assert.deepEqual(differ.slice(0, 10), []);
    // Not vacuous: most objects of real files take the shortcut.
    assert.ok(plain > 200 && plain > objects / 3, `${plain} of ${objects} objects read plain`);
  });

  it("an object's line after comments, blank lines and document markers", () => {
    const module = dump(helmModule());
    const texts = [
      `# a comment\n\n${module}`,
      `---\n${module}---\n# c\n\n  # indented comment\n${module}`,
      `\n\n---\n\n${module}\n---\n${module}`,
      `--- # marker with a comment\n${module}`,
      `${module}...\n`,
    ];
    let plain = 0;
    for (const text of texts) {
      const fast = parsed("f.yaml", text, true) ?? [];
      const slow = parsed("f.yaml", text, false) ?? [];
      assert.equal(fast.length, slow.length);
      for (const [i, manifest] of fast.entries()) {
        if (manifest.jsonBytesAtMost !== undefined) plain++;
        assert.equal(
          manifest.lineOf(),
          slow[i]?.lineOf(),
          `${JSON.stringify(text.slice(0, 60))}: object ${i}`,
        );
      }
    }
    assert.ok(plain >= 5, `${plain} objects read plain`);
  });

  it("a body's JSON, as any client sends it, stays within the bound, on ../shared", {
    skip: withoutCorpus,
  }, () => {
    let checked = 0;
    let widest = 0;
    for (const file of yamlFiles(corpusDir)) {
      for (const manifest of parsed(file, readFileSync(file, "utf8"), true) ?? []) {
        if (manifest.jsonBytesAtMost === undefined) continue;
        const bytes = sentBytes(manifest.object);
        assert.ok(bytes <= manifest.jsonBytesAtMost, `${file}: ${bytes} > ${manifest.jsonBytesAtMost}`);
        widest = Math.max(widest, bytes / manifest.jsonBytesAtMost);
        checked++;
      }
    }
    assert.ok(checked > 200, `${checked} objects`);
    // The bound is loose on real files; the generated ones below come closer.
    assert.ok(widest < 0.5, `widest ${widest}`);
  });

  it("a body's JSON stays within the bound on documents of the costliest scalars", () => {
    // The plain reader's value whether or not validate's readings scan would let it stand (it sends
    // `0x1` or `.inf` to the port of Go's readings): the bound is the reader's, for anything it reads.
    const random = new Random(4242);
    let read = 0;
    let closest = 0;
    for (let i = 0; i < 3000; i++) {
      const text = random.chance(0.1)
        ? dump(random.chance(0.5) ? helmModule() : customModule())
        : costlyDocument(random);
      const object = readPlainBlockYaml(text) as Record<string, unknown> | undefined;
      if (object === undefined) continue;
      read++;
      const bytes = sentBytes(object);
      // The bound without its constant, per character: what a long document of the same make would reach.
      const perCharacter = (plainJsonBytesAtMost(text.length) - plainJsonBytesAtMost(0)) / text.length;
      assert.ok(
        bytes <= perCharacter * text.length,
        `${JSON.stringify(text)}: ${bytes} bytes > ${perCharacter} × ${text.length}`,
      );
      closest = Math.max(closest, bytes / (perCharacter * text.length));
    }
    assert.ok(read > 2500, `${read} of 3000 documents read plain`);
    // Not vacuous: some documents write out at several times their length (64 per character is 1).
    assert.ok(closest > 0.05, `closest ${closest}`);
  });

  it("the input bounds find nothing where the bound is within the limit", () => {
    // The plain reader gives up on nesting well before the depth bound.
    const nested = (depth: number) =>
      `${Array.from({ length: depth }, (_, i) => `${"  ".repeat(i)}a${i}:`).join("\n")} 1`;
    assert.notEqual(readPlainBlockYaml(nested(40)), undefined);
    assert.equal(readPlainBlockYaml(nested(60)), undefined);
    assert.ok(60 < limits.depth);
    const [deep] = parsed("f.yaml", nested(40), true) ?? [];
    assert.ok(deep?.jsonBytesAtMost !== undefined && deep.jsonBytesAtMost <= limits.objectBytes);
    assert.equal(inputBoundProblem(deep.object), undefined);
    // A document too long for the bound to vouch for is walked, and refused by the walk.
    const long = `apiVersion: v1\nkind: ConfigMap\ndata:\n  a: ${"x".repeat(limits.objectBytes)}`;
    const [large] = parsed("f.yaml", long, true) ?? [];
    assert.ok(large?.jsonBytesAtMost !== undefined && large.jsonBytesAtMost > limits.objectBytes);
    assert.match(inputBoundProblem(large.object)?.message ?? "", /too large/);
  });
});
