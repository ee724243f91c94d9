import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { moduleWarnings } from "../../../src/resources/module/warnings.js";
import { customModule, helmModule } from "../../support/modules.js";

describe("Module warnings", () => {
  it("has none for a clean Module", () => {
    assert.deepEqual(moduleWarnings(helmModule()), []);
    assert.deepEqual(moduleWarnings(customModule()), []);
  });

  it("warns about legal but probably wrong settings, each at most 120 characters", () => {
    const module = helmModule();
    const helm = module.spec.helm;
    assert.ok(helm?.chart.repo);
    helm.existingRelease = { name: "redis" };
    delete helm.chart.repo.version;
    const features = module.config?.[4]?.multipleOptions;
    assert.ok(features);
    features.max = 9;
    const custom = customModule();
    custom.spec.custom?.permissions?.push("controller");
    const warnings = [...moduleWarnings(module), ...moduleWarnings(custom)];
    // Each with its rule id, so that `--rule-action ID=off` can silence one.
    assert.deepEqual(
      warnings.map((w) => [w.rule, w.message]),
      [
        [
          "module.release-name-ignored",
          "spec.helm.releaseName is ignored: the release name is spec.helm.existingRelease.name",
        ],
        [
          "module.chart-version-unset",
          "spec.helm.chart.repo.version is not set: every reconcile installs the newest chart version",
        ],
        ["module.multiple-options-max", "config[4].multipleOptions.max: max is 9, but only 3 values exist"],
        [
          "module.controller-permission",
          "spec.custom.permissions: controller gives the module a service account on the main cluster",
        ],
      ],
    );
  });
});
