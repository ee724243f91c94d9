import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load as loadYaml } from "js-yaml";
import { generateAll } from "../../src/codegen/generate.js";

const root = new URL("../../", import.meta.url).pathname;
const crdPath = "charts/module-admission/files/crds/moduletemplates.operator.kyma-project.io.yaml";

type Yaml = any;

describe("the ModuleTemplate CRD, generated from schemas/moduletemplate.yaml", async () => {
  const files = await generateAll(root);
  const generated = files.find((file) => file.path === crdPath);

  it("goes to the chart's files/crds (optional: true), while the Module CRD stays in crds/", () => {
    assert.ok(generated, `generated paths: ${files.map((file) => file.path).join(", ")}`);
    assert.ok(
      files.some(
        (file) => file.path === "charts/module-admission/files/crds/modules.batch.forkspacer.com.yaml",
      ),
    );
    assert.ok(!files.some((file) => file.path.startsWith("charts/module-admission/crds/moduletemplates")));
  });

  it("is committed exactly as generated (drift test)", () => {
    assert.equal(readFileSync(new URL(crdPath, `file://${root}`), "utf8"), generated?.content);
  });

  it("names moduletemplates.operator.kyma-project.io v1beta2, namespaced, short name mt, served and stored", () => {
    const crd: Yaml = loadYaml(generated?.content ?? "");
    assert.equal(crd.metadata.name, "moduletemplates.operator.kyma-project.io");
    assert.equal(crd.spec.scope, "Namespaced");
    assert.deepEqual(crd.spec.names.shortNames, ["mt"]);
    assert.deepEqual(
      crd.spec.versions.map((v: Yaml) => [v.name, v.served, v.storage]),
      [["v1beta2", true, true]],
    );
    assert.ok(!("optional" in crd.spec), "the generator's own field stays out of the CRD");
  });

  it("carries Kyma's constraints: patterns, lengths, required descriptor, embedded data, map lists", () => {
    const spec: Yaml = (loadYaml(generated?.content ?? "") as Yaml).spec.versions[0].schema.openAPIV3Schema
      .properties.spec;
    const fields = spec.properties;
    assert.deepEqual(Object.keys(fields).sort(), [
      "associatedResources",
      "channel",
      "customStateCheck",
      "data",
      "descriptor",
      "info",
      "manager",
      "mandatory",
      "moduleName",
      "requiresDowntime",
      "resources",
      "version",
    ]);
    assert.deepEqual(spec.required, ["descriptor"]);
    assert.equal(
      fields.version.pattern,
      String.raw`^((0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[a-zA-Z-][0-9a-zA-Z-]*)?)?$`,
    );
    assert.equal(fields.version.maxLength, 32);
    assert.equal(fields.moduleName.pattern, "^([a-z]{3,}(-[a-z]{3,})*)?$");
    assert.equal(fields.moduleName.maxLength, 64);
    assert.equal(fields.channel.pattern, "^$|^[a-z]{3,}$");
    assert.equal(fields.channel.maxLength, 32);
    assert.equal(fields.data["x-kubernetes-embedded-resource"], true);
    assert.equal(fields.data["x-kubernetes-preserve-unknown-fields"], true);
    assert.equal(fields.descriptor["x-kubernetes-preserve-unknown-fields"], true);
    for (const list of [fields.resources, fields.info.properties.icons]) {
      assert.equal(list["x-kubernetes-list-type"], "map");
      assert.deepEqual(list["x-kubernetes-list-map-keys"], ["name"]);
      assert.ok(list.items.required.includes("name"), "a map key must be required");
    }
    assert.deepEqual(fields.manager.required, ["group", "version", "kind", "name"]);
    assert.deepEqual(fields.customStateCheck.items.required, ["jsonPath", "value", "mappedState"]);
  });
});
