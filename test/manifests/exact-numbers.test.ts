import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseManifests } from "../../src/manifests/manifests.js";
import { yamlReaders } from "../../src/manifests/yaml-readings.js";

/**
 * Numbers as the API server comes to hold them after kubectl or a GitOps tool wrote the YAML's value
 * as JSON (checked against kube-apiserver 1.37 by test/control-plane-diff/differential.e2e.test.ts).
 */
describe("validate's readers: integers exact, numbers as the API server reads them", () => {
  const text = [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata: {name: x}",
    "x:",
    "  max: 9223372036854775807",
    "  min: -9223372036854775808",
    "  beyond: 9223372036854775808",
    "  uint: 18446744073709551615",
    "  safe: 9007199254740993",
    "  exponent: 9.2e18",
    "  negative: -9.2e18",
    "  small: 1e3",
    "  one: 1.0",
    "  flow: [9223372036854775806, 2.5]",
    "  digest: sha256:1e3f",
  ].join("\n");

  for (const reader of yamlReaders)
    it(`as ${reader} sends it`, () => {
      const [manifest] = parseManifests("m.yaml", text, reader);
      assert.deepEqual(manifest?.object.x, {
        max: 9223372036854775807n,
        min: -9223372036854775808n,
        beyond: 2 ** 63,
        uint: 2 ** 64,
        safe: 9007199254740993n,
        exponent: 9200000000000000000n,
        negative: -9200000000000000000n,
        small: 1000,
        one: 1,
        flow: [9223372036854775806n, 2.5],
        digest: "sha256:1e3f",
      });
    });
});
