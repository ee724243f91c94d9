import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { hasTemplate, parseTemplate } from "../../../src/go/template/index.js";
import { corpusUrl, withoutCorpus } from "../../support/corpus.js";

const manifests = corpusUrl("forkspacer/manifests/");

/** Every string the operator would render: in the Modules' specs, containing both {{ and }}. */
function templates(): { file: string; text: string }[] {
  const found: { file: string; text: string }[] = [];
  const walk = (file: string, value: unknown): void => {
    if (typeof value === "string" && hasTemplate(value)) found.push({ file, text: value });
    else if (typeof value === "object" && value !== null) for (const v of Object.values(value)) walk(file, v);
  };
  for (const file of readdirSync(manifests).sort()) {
    for (const doc of parseAllDocuments(readFileSync(new URL(file, manifests), "utf8")))
      walk(file, doc.toJS()?.spec);
  }
  return found;
}

describe("go-template on the real Forkspacer manifests (../shared/forkspacer/manifests)", {
  skip: withoutCorpus,
}, () => {
  const all = templates();

  it("parses every template the operator renders, except the docs' use of sub, which Go refuses naming it", () => {
    assert.ok(all.length >= 20, `only ${all.length} templates found`);
    const refused = all.flatMap(({ file, text }) => {
      const result = parseTemplate(text, { functions: ["randBase62"] });
      return result.ok ? [] : [`${file}: ${result.error.message}`];
    });
    assert.deepEqual(refused, ['docs__module__L886.yaml: template: :1: function "sub" not defined']);
    const sub = all.find(({ text }) => text.includes("sub "));
    const result = parseTemplate(sub?.text ?? "", { functions: ["randBase62"] });
    assert.equal(result.ok ? undefined : result.error.undefinedFunction, "sub");
    assert.equal(result.ok ? undefined : sub?.text.slice(result.error.offset).startsWith("sub"), true);
  });

  it("finds the data they read: config keys, releaseName and namespace only", () => {
    const roots = new Set<string>();
    for (const { text } of all) {
      const result = parseTemplate(text, { functions: ["randBase62", "sub"] });
      assert.ok(result.ok);
      assert.equal(result.template.analysis.unresolvedFields, 0, text);
      for (const f of result.template.analysis.fields)
        roots.add(f.path[0] === "config" ? "config" : f.path.join("."));
    }
    assert.deepEqual([...roots].sort(), ["config", "namespace", "releaseName"]);
  });
});
