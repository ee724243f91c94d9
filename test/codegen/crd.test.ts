import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load } from "js-yaml";

type Schema = Record<string, any>;
const crd = load(
  readFileSync(
    new URL("../../charts/module-admission/files/crds/modules.batch.forkspacer.com.yaml", import.meta.url),
    "utf8",
  ),
) as Schema;
const version = crd.spec.versions[0];
const root: Schema = version.schema.openAPIV3Schema;

/** Every schema node with its path, e.g. `.spec.helm.releaseName`, `.config[*].alias`. */
function nodes(schema: Schema, path = ""): [string, Schema][] {
  const found: [string, Schema][] = [[path, schema]];
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    found.push(...nodes(child as Schema, `${path}.${key}`));
  if (schema.items) found.push(...nodes(schema.items, `${path}[*]`));
  return found;
}

describe("the generated Module CRD", () => {
  it("names the resource as the operator does", () => {
    assert.equal(crd.apiVersion, "apiextensions.k8s.io/v1");
    assert.equal(crd.metadata.name, "modules.batch.forkspacer.com");
    assert.deepEqual(crd.spec.names, {
      kind: "Module",
      listKind: "ModuleList",
      plural: "modules",
      singular: "module",
      shortNames: ["mo"],
    });
    assert.equal(crd.spec.scope, "Namespaced");
    assert.equal(version.name, "v1");
    assert.deepEqual(version.subresources, { status: {} });
  });

  it("has the operator's printer columns, and the release name", () => {
    assert.deepEqual(
      version.additionalPrinterColumns.map((c: Schema) => [c.name, c.jsonPath]),
      [
        ["Phase", ".status.phase"],
        ["Source", ".status.source"],
        ["Workspace NS", ".spec.workspace.namespace"],
        ["Workspace Name", ".spec.workspace.name"],
        ["Last Activity", ".status.lastActivity"],
        ["Message", ".status.message"],
        ["Release", ".spec.helm.releaseName"],
      ],
    );
  });

  it("is structural: a type on every node but free-form ones, no references or forbidden keywords", () => {
    const forbidden = [
      "$ref",
      "$defs",
      "definitions",
      "title",
      "patternProperties",
      "dependencies",
      "additionalItems",
    ];
    for (const [path, node] of nodes(root)) {
      if (node["x-kubernetes-preserve-unknown-fields"] !== true) assert.ok(node.type, `${path} has no type`);
      for (const key of forbidden) assert.equal(node[key], undefined, `${path} has ${key}`);
      assert.notEqual(node.additionalProperties, false, `${path}: additionalProperties false is not allowed`);
      assert.notEqual(node.uniqueItems, true, `${path}: uniqueItems true is not allowed`);
    }
  });

  it("describes every field (kubectl explain); list items are described by their list", () => {
    const undocumented = nodes(root)
      .filter(([path, node]) => path !== "" && !path.endsWith("[*]") && !node.description)
      .map(([path]) => path);
    // The API server describes metadata itself (ObjectMeta) and refuses a CRD that says more than its type.
    assert.deepEqual(undocumented, [".metadata"]);
    assert.deepEqual(root.properties.metadata, { type: "object" });
  });

  it("preserves unknown fields only where the spec is free-form", () => {
    const free = nodes(root)
      .filter(([, node]) => node["x-kubernetes-preserve-unknown-fields"] === true)
      .map(([path]) => path);
    assert.deepEqual(free.sort(), [
      ".spec.config",
      ".spec.helm.outputs[*].value",
      ".spec.helm.values[*].raw",
    ]);
  });

  it("carries the CEL rules, on bounded fields", () => {
    const rules = nodes(root).flatMap(([path, node]) =>
      (node["x-kubernetes-validations"] ?? []).map((rule: Schema) => `${path}: ${rule.rule}`),
    );
    assert.deepEqual(rules, [
      ".spec: has(self.helm) != has(self.custom)",
      ".spec: !has(oldSelf.helm) || has(self.helm)",
      ".spec: !has(oldSelf.custom) || has(self.custom)",
      ".spec.helm: !has(oldSelf.releaseName) || (has(self.releaseName) && self.releaseName == oldSelf.releaseName)",
      ".spec.helm: !has(self.releaseName) || self.releaseName.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
      ".spec.helm.chart: [has(self.repo), has(self.git), has(self.configMap)].filter(x, x).size() == 1",
    ]);
    // The only value a rule compares is releaseName; the others only test presence.
    assert.equal(root.properties.spec.properties.helm.properties.releaseName.maxLength, 53);
  });
});
