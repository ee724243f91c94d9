import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { AdmissionResponse } from "../../src/admission/review.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { manifestDir } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import {
  kedaReleaseMeta,
  type ReleaseMetaWithSpec,
  releaseMetaReview,
} from "../support/modulereleasemetas.js";

const validatePath = "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta";

function mandatoryMeta(version: string): ReleaseMetaWithSpec {
  const meta = kedaReleaseMeta();
  meta.spec.channels = undefined;
  meta.spec.mandatory = { version };
  return meta;
}

/** Admitted by Kyma's CRD, never resolved by lifecycle-manager: each with the warning it must get. */
const unresolvable: [string, ReleaseMetaWithSpec, string][] = [
  [
    "no ocmComponentName",
    (() => {
      const meta = kedaReleaseMeta();
      meta.spec.ocmComponentName = undefined;
      return meta;
    })(),
    'spec.ocmComponentName is not set: lifecycle-manager fails with "invalid component name"',
  ],
  [
    'a channel version ""',
    kedaReleaseMeta({ regular: "1.2.0", fast: "" }),
    'spec.channels[1].version: is "": channel "fast" never resolves',
  ],
  [
    "a channel version no template name can carry (capitals)",
    kedaReleaseMeta({ regular: "1.2.0-RC" }),
    'spec.channels[0].version: no ModuleTemplate can be named "keda-1.2.0-RC": channel "regular" never resolves',
  ],
  [
    "a mandatory version with build metadata (+ is not allowed in a name)",
    mandatoryMeta("1.1.0+b1"),
    'spec.mandatory.version: no ModuleTemplate can be named "keda-1.1.0+b1": blocks every mandatory module for every Kyma',
  ],
];

describe("ModuleReleaseMeta: warnings where lifecycle-manager can never resolve it (live server)", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  async function review(object: unknown, oldObject?: unknown): Promise<AdmissionResponse> {
    const operation = oldObject ? "UPDATE" : "CREATE";
    const reply = await server.post(validatePath, releaseMetaReview({ operation, object, oldObject }));
    assert.equal(reply.status, 200, reply.text);
    return reply.json.response;
  }

  for (const [what, meta, warning] of unresolvable) {
    it(`admits and warns: ${what}`, async () => {
      const response = await review(meta);
      assert.equal(response.allowed, true, JSON.stringify(response.status));
      assert.deepEqual(response.warnings, [warning]);
    });
  }

  it("warns when a mandatory version moves lower (no version check on the mandatory path), not when it rises", async () => {
    const lowered = await review(mandatoryMeta("1.1.0"), mandatoryMeta("1.2.0"));
    assert.equal(lowered.allowed, true);
    assert.deepEqual(lowered.warnings, [
      "spec.mandatory.version: 1.2.0 -> 1.1.0 is lower: lifecycle-manager downgrades every Kyma",
    ]);
    const preRelease = await review(mandatoryMeta("1.2.0-rc.1"), mandatoryMeta("1.2.0"));
    assert.deepEqual(preRelease.warnings, [
      "spec.mandatory.version: 1.2.0 -> 1.2.0-rc.1 is lower: lifecycle-manager downgrades every Kyma",
    ]);
    const raised = await review(mandatoryMeta("1.3.0"), mandatoryMeta("1.2.0"));
    assert.deepEqual(raised.warnings ?? [], []);
  });

  it("a resolvable release meta gets none of these", async () => {
    const response = await review(kedaReleaseMeta());
    assert.deepEqual(response.warnings ?? [], []);
  });
});

describe("validate (the built command) gives the same warnings, the mandatory downgrade with --old", () => {
  it("warns of each and exits 0", () => {
    const metas = unresolvable.map(([, meta], i) => ({
      ...meta,
      // Templates are looked up by the release meta's name (lifecycle-manager's lookup.go): each keeps
      // "keda", in a namespace of its own.
      metadata: { name: "keda", namespace: `kcp-system-${i}` },
    }));
    const dir = manifestDir({ "mrm.yaml": metas });
    const run = builtCli(["validate", "-f", join(dir, "mrm.yaml"), "-o", "json"]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const warnings = builtFindings(run)
      .filter((finding) => !finding.message.startsWith("metadata.name"))
      .map((finding) => [finding.severity, finding.message]);
    assert.deepEqual(
      warnings,
      unresolvable.map(([, , warning]) => ["warning", warning]),
    );
  });

  it("warns of a lower mandatory version against --old", () => {
    const dir = manifestDir({ "new.yaml": [mandatoryMeta("1.1.0")], "old.yaml": [mandatoryMeta("1.2.0")] });
    const run = builtCli([
      "validate",
      "-f",
      join(dir, "new.yaml"),
      "--old",
      join(dir, "old.yaml"),
      "-o",
      "json",
    ]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.deepEqual(
      builtFindings(run).map((finding) => finding.message),
      ["spec.mandatory.version: 1.2.0 -> 1.1.0 is lower: lifecycle-manager downgrades every Kyma"],
    );
  });
});
