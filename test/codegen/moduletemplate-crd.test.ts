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

  it("names moduletemplates.operator.kyma-project.io, namespaced, short name mt; v1beta2 served and stored, v1beta1 kept unserved", () => {
    const crd: Yaml = loadYaml(generated?.content ?? "");
    assert.equal(crd.metadata.name, "moduletemplates.operator.kyma-project.io");
    assert.equal(crd.spec.scope, "Namespaced");
    assert.deepEqual(crd.spec.names.shortNames, ["mt"]);
    assert.deepEqual(
      crd.spec.versions.map((v: Yaml) => [v.name, v.served, v.storage, v.deprecated ?? false]),
      [
        ["v1beta1", false, false, true],
        ["v1beta2", true, true, false],
      ],
    );
    assert.ok(!("optional" in crd.spec), "the generator's own field stays out of the CRD");
    assert.ok(!("legacyVersions" in crd.spec));
    const v1beta1 = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    assert.deepEqual(v1beta1.required, ["descriptor", "target"]);
    assert.deepEqual(v1beta1.properties.target.enum, ["control-plane", "remote"]);
    assert.equal(
      v1beta1.properties.customStateCheck.items.properties.mappedState.enum.length,
      7,
      "its $refs resolved",
    );
  });

  it("offline checks take the stored version's schema, not the first listed", async () => {
    const { offlineKinds } = await import("../../src/offline/kinds.js");
    const template = offlineKinds().find((kind) => kind.kind.kind === "ModuleTemplate");
    assert.ok(template);
    assert.ok((template.crdSchema as Yaml).properties.spec.properties.moduleName, "v1beta2 has moduleName");
  });

  it("ModuleReleaseMeta: also optional, with Kyma's CEL rule on spec", () => {
    const mrm = files.find(
      (file) =>
        file.path === "charts/module-admission/files/crds/modulereleasemetas.operator.kyma-project.io.yaml",
    );
    const crd: Yaml = loadYaml(mrm?.content ?? "");
    assert.deepEqual(
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec["x-kubernetes-validations"],
      [
        {
          rule: "(has(self.mandatory) && !has(self.channels)) || (!has(self.mandatory) && has(self.channels))",
          message: "exactly one of 'mandatory' or 'channels' must be specified",
        },
      ],
    );
  });
});
