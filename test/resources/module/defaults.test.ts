import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AdmissionRequest } from "../../../src/admission/review.js";
import { applyModuleDefaults } from "../../../src/resources/module/defaults.js";
import { customModule, helmModule } from "../../support/modules.js";

const request = (operation: AdmissionRequest["operation"], namespace = "default"): AdmissionRequest => ({
  uid: "u",
  kind: { group: "batch.forkspacer.com", version: "v1", kind: "Module" },
  operation,
  namespace,
});

function unnamed() {
  const module = helmModule();
  if (module.spec.helm) delete module.spec.helm.releaseName;
  return module;
}

describe("Module defaults", () => {
  it("names the release on CREATE from the object's namespace, without touching the input", () => {
    const input = unnamed();
    input.metadata = { name: "redis", namespace: "team-a" };
    const output = applyModuleDefaults(input, request("CREATE"), undefined);
    assert.match(output.spec.helm?.releaseName ?? "", /^team-a-[a-z0-9]{11}$/);
    assert.equal(input.spec.helm?.releaseName, undefined);
  });

  it("falls back to the request's namespace when the object has none", () => {
    const input = unnamed();
    input.metadata = { name: "redis" };
    const output = applyModuleDefaults(input, request("CREATE", "ops"), undefined);
    assert.match(output.spec.helm?.releaseName ?? "", /^ops-/);
  });

  it("takes the request's namespace when the object's is not a string (a review the API server never sends)", () => {
    const input = unnamed();
    input.metadata = { name: "redis", namespace: { toString: false } as unknown as string };
    const output = applyModuleDefaults(input, request("CREATE", "ops"), undefined);
    assert.match(output.spec.helm?.releaseName ?? "", /^ops-/);
  });

  it("leaves named, adopting and custom Modules alone (idempotent)", () => {
    const named = helmModule();
    assert.equal(applyModuleDefaults(named, request("CREATE"), undefined), named);
    const adopting = unnamed();
    if (adopting.spec.helm) adopting.spec.helm.existingRelease = { name: "redis" };
    assert.equal(applyModuleDefaults(adopting, request("CREATE"), undefined), adopting);
    const custom = customModule();
    assert.equal(applyModuleDefaults(custom, request("CREATE"), undefined), custom);
    const once = applyModuleDefaults(unnamed(), request("CREATE"), undefined);
    assert.equal(applyModuleDefaults(once, request("CREATE"), undefined), once);
  });

  it("restores the old name on UPDATE and never invents one there", () => {
    const restored = applyModuleDefaults(unnamed(), request("UPDATE"), helmModule());
    assert.equal(restored.spec.helm?.releaseName, "redis-main");
    const neverNamed = unnamed();
    assert.equal(applyModuleDefaults(neverNamed, request("UPDATE"), unnamed()), neverNamed);
  });
});
