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

  it("carries the CEL rules, each naming its rule and sitting on the node whose value it judges", () => {
    const rules = nodes(root).flatMap(([path, node]) =>
      (node["x-kubernetes-validations"] ?? []).map(
        (rule: Schema) =>
          `${path}: ${/\(rule ([^)]+)\)'?$/.exec(rule.message ?? rule.messageExpression ?? "")?.[1]}`,
      ),
    );
    assert.deepEqual(rules, [
      ".spec: module.source",
      ".spec: module.source",
      ".spec: module.source-immutable",
      ".spec: module.source-immutable",
      ".spec: module.source-immutable",
      ".spec: module.source-immutable",
      ".spec: module.workspace-immutable",
      ".spec: module.config-immutable",
      ".spec.helm: module.release-name-immutable",
      ".spec.helm: module.existing-release-immutable",
      ".spec.helm: module.outputs-immutable",
      ".spec.helm.chart: module.chart-source",
      ".spec.helm.chart: module.chart-source",
      ".spec.helm.chart: module.chart-source",
      ".spec.helm.chart.git.auth: module.git-auth",
      ".spec.helm.releaseName: module.release-name",
      ".spec.helm.existingRelease.name: module.existing-release-name",
      ".spec.custom: module.custom-image-immutable",
      ".spec.custom.image: module.custom-image",
    ]);
    assert.equal(root.properties.spec.properties.helm.properties.releaseName.maxLength, 53);
  });
});
