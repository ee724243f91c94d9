import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load as loadYaml } from "js-yaml";
import { generateAll } from "../../src/codegen/generate.js";
import { corpusUrl, withoutCorpus } from "../support/corpus.js";

const root = new URL("../../", import.meta.url).pathname;
const kymaCrds = corpusUrl("kyma/crds/");

/**
 * Every leaf of a CRD's spec as `path = value`, descriptions left out (ours are our own words). A path
 * that only one side has, or a value that differs, is a difference from Kyma's CRD.
 */
function leaves(node: unknown, path = "spec", out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(node) && node.every((item) => item === null || typeof item !== "object")) {
    out.set(path, JSON.stringify(node));
  } else if (Array.isArray(node)) {
    node.forEach((item, i) => {
      const name = (item as { name?: unknown }).name;
      leaves(item, `${path}[${typeof name === "string" ? name : i}]`, out);
    });
  } else if (node !== null && typeof node === "object") {
    const entries = Object.entries(node).filter(([key]) => key !== "description");
    if (entries.length === 0) out.set(path, "{}");
    for (const [key, value] of entries) leaves(value, `${path}.${key}`, out);
  } else {
    out.set(path, JSON.stringify(node));
  }
  return out;
}

function differences(ours: Map<string, string>, theirs: Map<string, string>): string[] {
  const paths = [...new Set([...ours.keys(), ...theirs.keys()])].sort();
  return paths
    .filter((path) => ours.get(path) !== theirs.get(path))
    .map((path) => `${path}: ours ${ours.get(path) ?? "(absent)"}, Kyma's ${theirs.get(path) ?? "(absent)"}`);
}

describe("Kyma's CRDs, reproduced by our schema sources (path by path, descriptions aside)", {
  skip: withoutCorpus,
}, async () => {
  const files = await generateAll(root);
  for (const name of [
    "moduletemplates.operator.kyma-project.io",
    "modulereleasemetas.operator.kyma-project.io",
  ]) {
    it(name, () => {
      const generated = files.find((file) => file.path === `charts/module-admission/files/crds/${name}.yaml`);
      assert.ok(generated, `${name} is generated into the chart's optional CRDs`);
      const ours = loadYaml(generated.content) as { metadata: { name: string }; spec: unknown };
      const theirs = loadYaml(
        readFileSync(new URL(`operator.kyma-project.io_${name.split(".")[0]}.yaml`, kymaCrds), "utf8"),
      ) as {
        metadata: { name: string };
        spec: unknown;
      };
      assert.equal(ours.metadata.name, theirs.metadata.name);
      const found = differences(leaves(ours.spec), leaves(theirs.spec));
      assert.deepEqual(found, [], found.join("\n"));
    });
  }

  it("the comparison sees a difference: a narrowed enum, an added cap, a dropped version", () => {
    const kyma = loadYaml(
      readFileSync(new URL("operator.kyma-project.io_moduletemplates.yaml", kymaCrds), "utf8"),
    ) as { spec: { versions: { name: string; schema: { openAPIV3Schema: any } }[] } };
    const changed = structuredClone(kyma);
    const v1beta2 = changed.spec.versions.find((version) => version.name === "v1beta2");
    const spec = v1beta2?.schema.openAPIV3Schema.properties.spec.properties;
    spec.customStateCheck.items.properties.mappedState.enum.pop();
    spec.resources.maxItems = 64;
    changed.spec.versions = changed.spec.versions.filter((version) => version.name !== "v1beta1");
    const found = differences(leaves(changed.spec), leaves(kyma.spec));
    assert.ok(
      found.some((line) => line.includes("mappedState.enum")),
      found.join("\n"),
    );
    assert.ok(
      found.some((line) => line.includes("resources.maxItems")),
      found.join("\n"),
    );
    assert.ok(
      found.some((line) => line.startsWith("spec.versions[v1beta1].served")),
      found.join("\n"),
    );
  });
});
