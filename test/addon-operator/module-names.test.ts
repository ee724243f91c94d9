import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { moduleNameOf, moduleNameProblem, valuesKeyOf } from "../../src/addon-operator/module-names.js";

describe("module names and values keys", () => {
  it("converts the issue's names and round-trips the valid ones", () => {
    const valid: [string, string][] = [
      ["module1", "module1"],
      ["prometheus-operator", "prometheusOperator"],
      ["cert-manager-crd", "certManagerCrd"],
      ["l2-load-balancer", "l2LoadBalancer"],
      ["module-one01", "moduleOne01"],
    ];
    for (const [name, key] of valid) {
      assert.equal(valuesKeyOf(name), key);
      assert.equal(moduleNameOf(key), name);
      assert.equal(moduleNameProblem(name), undefined, name);
      assert.equal(valuesKeyOf(moduleNameOf(key)), key, key);
    }
  });

  it("refuses names that do not survive the round trip", () => {
    for (const name of ["module_one", "a--b", "foo-1", "a-b-c", "Module", "-a", "1abc"]) {
      assert.notEqual(moduleNameProblem(name), undefined, name);
    }
    for (const key of ["SomeModule", "some_module", "aBC", "some-module"]) {
      assert.notEqual(valuesKeyOf(moduleNameOf(key)), key, key);
    }
  });
});
