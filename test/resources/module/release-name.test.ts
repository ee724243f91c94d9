import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateReleaseName } from "../../../src/resources/module/release-name.js";
import { dns1035LabelProblems } from "../../../src/validation/names.js";

describe("generated release names", () => {
  const namespaces = [
    "default",
    "a",
    "0team",
    "9",
    "x".repeat(63),
    `${"a".repeat(40)}-${"b".repeat(22)}`,
    `${"1".repeat(40)}--b`,
    "team-a-",
    "",
  ];
  for (const namespace of namespaces) {
    it(`is a DNS-1035 label of at most 53 characters for namespace ${JSON.stringify(namespace)}`, () => {
      for (let i = 0; i < 50; i++) {
        const name = generateReleaseName(namespace);
        assert.deepEqual(dns1035LabelProblems(name, 53), [], name);
      }
    });
  }

  it("keeps the operator's <namespace>-<11 lowercase alphanumerics> format where the namespace allows", () => {
    assert.match(generateReleaseName("default"), /^default-[a-z0-9]{11}$/);
    assert.match(generateReleaseName("0team"), /^m0team-[a-z0-9]{11}$/);
    const long = generateReleaseName("x".repeat(63));
    assert.match(long, /^x{41}-[a-z0-9]{11}$/);
  });

  it("differs from call to call", () => {
    const names = new Set(Array.from({ length: 200 }, () => generateReleaseName("default")));
    assert.equal(names.size, 200);
  });
});
