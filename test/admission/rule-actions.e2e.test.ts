import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { AdmissionResponse } from "../../src/admission/review.js";
import { parseRuleActions } from "../../src/admission/rule-actions.js";
import { resourceKinds } from "../../src/resources/index.js";
import { admissionCases } from "../support/admission-cases.js";
import { splitCauseMessage } from "../support/cause-message.js";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const flags = ["module.config-value=warn", "module.config-default=off"];

/**
 * Replicas over the schema's max (module.config-value) and an option default outside its values
 * (module.config-default): two webhook rules no CEL rule of the CRD repeats.
 */
function twoProblems() {
  const module = helmModule();
  const version = module.config?.[0];
  if (version?.option) version.option.default = "1.0";
  module.spec.config = { ...module.spec.config, replicas: 9 };
  return module;
}

describe("rule ids and rule actions, in the server and in validate alike", () => {
  let server: LiveServer;
  let plain: LiveServer;
  before(async () => {
    server = await startLiveServer(undefined, { ruleActions: parseRuleActions(flags) });
    plain = await startLiveServer();
  });
  after(async () => {
    await server.close();
    await plain.close();
  });

  it("every cause of every case of the end-to-end suite carries a rule id its kind declares", async () => {
    const declared = new Set(resourceKinds.flatMap((kind) => kind.rules ?? []));
    let causes = 0;
    for (const { review } of admissionCases()) {
      const response = (await plain.post(validatePath, review)).json.response as AdmissionResponse;
      for (const cause of response.status?.details?.causes ?? []) {
        causes++;
        const { rule } = splitCauseMessage(cause.message);
        assert.ok(rule && declared.has(rule), `${cause.field}: ${cause.message}`);
      }
    }
    assert.ok(causes >= 20, `${causes} causes`);
  });

  it("warn admits what it would deny, with its message as a warning; off says nothing", async () => {
    const denied = (
      await plain.post(validatePath, admissionReview({ operation: "CREATE", object: twoProblems() }))
    ).json.response as AdmissionResponse;
    assert.deepEqual(
      denied.status?.details?.causes?.map((cause) => splitCauseMessage(cause.message).rule),
      ["module.config-default", "module.config-value"],
    );
    const response = (
      await server.post(validatePath, admissionReview({ operation: "CREATE", object: twoProblems() }))
    ).json.response as AdmissionResponse;
    assert.equal(response.allowed, true);
    assert.deepEqual(response.warnings, [
      "spec.config.replicas: Invalid value: 9: must be less than or equal to 5",
    ]);
  });

  it("validate --rule-action gives the same answer", async () => {
    const dir = manifestDir({ "module.yaml": [twoProblems()] });
    const file = join(dir, "module.yaml");
    const denied = await validateCli(["-f", file, "-o", "json"]);
    assert.equal(denied.status, 1);
    assert.deepEqual(
      jsonFindings(denied)
        .filter((f) => f.severity === "error")
        .map((f) => f.rule),
      ["validating-webhook/module.config-default", "validating-webhook/module.config-value"],
    );
    const run = await validateCli([
      "-f",
      file,
      ...flags.flatMap((flag) => ["--rule-action", flag]),
      "-o",
      "json",
    ]);
    assert.equal(run.status, 0, run.stdout);
    assert.deepEqual(
      jsonFindings(run).map((f) => [f.severity, f.message]),
      [["warning", "spec.config.replicas: Invalid value: 9: must be less than or equal to 5"]],
    );
    const unknown = await validateCli(["-f", file, "--rule-action", "module.nope=warn"]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no rule "module.nope"/);
  });
});
