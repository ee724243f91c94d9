import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";

describe("validate: Kyma ModuleReleaseMetas offline (CRD and CEL rule, downgrade with --old, no cluster lookup)", () => {
  it("admits a valid one without asking for its templates, and denies both mandatory and channels by Kyma's CEL rule", async () => {
    const both = kedaReleaseMeta();
    both.metadata = { name: "both", namespace: "kcp-system" };
    both.spec.mandatory = { version: "1.2.0" };
    const neither = kedaReleaseMeta();
    neither.metadata = { name: "neither", namespace: "kcp-system" };
    neither.spec.channels = undefined;
    const dir = manifestDir({ "mrm.yaml": [kedaReleaseMeta(), both, neither] });
    const run = await validateCli(["-f", join(dir, "mrm.yaml"), "-o", "json"]);
    assert.equal(run.status, 1, run.stdout);
    const errors = jsonFindings(run).filter((finding) => finding.severity === "error");
    assert.deepEqual(
      errors.map((finding) => [finding.object, finding.rule, finding.message]),
      ["both", "neither"].map((name) => [
        `ModuleReleaseMeta kcp-system/${name}`,
        "cel/modulereleasemeta.schema",
        "spec: Invalid value: exactly one of 'mandatory' or 'channels' must be specified",
      ]),
    );
  });

  it("denies a channel or mandatory version lifecycle-manager's semver library cannot parse, with its message (issue 43)", async () => {
    const mandatory = kedaReleaseMeta();
    mandatory.metadata = { name: "mandatory", namespace: "kcp-system" };
    mandatory.spec.channels = undefined;
    mandatory.spec.mandatory = { version: "18446744073709551616.0.0" };
    const dir = manifestDir({
      "mrm.yaml": [
        kedaReleaseMeta({ regular: "1.0.18446744073709551616", fast: "1.0.18446744073709551615" }),
        mandatory,
      ],
    });
    const run = await validateCli(["-f", join(dir, "mrm.yaml"), "-o", "json"]);
    assert.equal(run.status, 1, run.stdout);
    const errors = jsonFindings(run).filter((finding) => finding.severity === "error");
    assert.deepEqual(
      errors.map((finding) => [finding.rule, finding.field]),
      [
        ["validating-webhook/modulereleasemeta.version", "spec.channels[0].version"],
        ["validating-webhook/modulereleasemeta.version", "spec.mandatory.version"],
      ],
    );
    assert.match(
      errors[0]?.message ?? "",
      /could not handle channel skew as descriptor from template contains invalid version \(Masterminds\/semver: error parsing version segment: strconv\.ParseUint: parsing "18446744073709551616": value out of range\)/,
    );
  });

  it("denies a channel downgrade against --old", async () => {
    const dir = manifestDir({
      "new.yaml": [kedaReleaseMeta({ regular: "1.1.0" })],
      "old.yaml": [kedaReleaseMeta({ regular: "1.2.0" })],
    });
    const run = await validateCli([
      "-f",
      join(dir, "new.yaml"),
      "--old",
      join(dir, "old.yaml"),
      "-o",
      "json",
    ]);
    assert.equal(run.status, 1, run.stdout);
    assert.deepEqual(
      jsonFindings(run).map((finding) => finding.message),
      [
        'spec.channels[0].version: Invalid value: "1.1.0": may not decrease (channel "regular" was "1.2.0"): lifecycle-manager does not downgrade installed modules',
      ],
    );
  });
});
