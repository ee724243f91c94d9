import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldError } from "../../src/admission/field-errors.js";
import { causeMessage } from "../../src/admission/field-errors.js";
import { validate } from "../../src/admission/handler.js";
import { applyRuleActions, checkRuleIds, parseRuleActions } from "../../src/admission/rule-actions.js";
import type { RuleId } from "../../src/admission/rule-catalogue.js";
import { FieldPath } from "../../src/base/field-path.js";
import { resourceKinds } from "../../src/resources/index.js";
import { moduleKind } from "../../src/resources/module/index.js";
import { moduleReleaseMetaKind } from "../../src/resources/modulereleasemeta/index.js";
import { workspaceKind } from "../../src/resources/workspace/index.js";
import { splitCauseMessage } from "../support/cause-message.js";
import { kedaReleaseMeta, releaseMetaReview } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { workspace } from "../support/workspaces.js";

const error = (rule: RuleId | undefined, field: string): FieldError => ({
  type: "invalid",
  field: FieldPath.of(field.split(".")),
  value: "x",
  detail: "bad",
  ...(rule ? { rule } : {}),
});

describe("rule actions", () => {
  it("parses ID=deny|warn|off, the last one for an id winning, and refuses anything else", () => {
    const actions = parseRuleActions(["module.release-name=warn", "module.source=off", "module.source=deny"]);
    assert.deepEqual(
      [...actions],
      [
        ["module.release-name", "warn"],
        ["module.source", "deny"],
      ],
    );
    for (const bad of [
      "module.release-name",
      "module.release-name=block",
      "release-name=warn",
      "a.b=warn=x",
    ]) {
      assert.throws(() => parseRuleActions([bad]), /--rule-action must be RULE-ID=deny\|warn\|off/, bad);
    }
  });

  it("refuses ids no served kind declares, naming the known ones", () => {
    assert.doesNotThrow(() => checkRuleIds(parseRuleActions(["moduletemplate.link=warn"]), resourceKinds));
    assert.throws(
      () => checkRuleIds(parseRuleActions(["module.relase-name=warn"]), resourceKinds),
      /no rule "module.relase-name"; the rules are .*module\.release-name/,
    );
  });

  it("keeps denying errors, turns warn rules into warnings in kubectl's wording, drops off rules", () => {
    const errors = [
      error("module.source", "spec.a"),
      error("module.release-name", "spec.b"),
      error(undefined, "spec.c"),
    ];
    const actions = parseRuleActions(["module.source=warn", "module.release-name=off"]);
    assert.deepEqual(applyRuleActions(errors, actions), {
      errors: [error(undefined, "spec.c")],
      // The warning keeps its rule id: a rule set to warn is still that rule in validate's findings.
      warnings: [
        {
          rule: "module.source",
          message: 'spec.a: Invalid value: "x": bad',
          field: FieldPath.root("spec").child("a"),
        },
      ],
    });
    assert.deepEqual(applyRuleActions(errors, new Map()), { errors, warnings: [] });
  });

  it("shows the rule after apimachinery's wording in a cause, and reads it back", () => {
    const message = causeMessage(error("module.release-name", "spec.helm.releaseName"));
    assert.equal(message, 'Invalid value: "x": bad (rule module.release-name)');
    assert.deepEqual(splitCauseMessage(message), {
      message: 'Invalid value: "x": bad',
      rule: "module.release-name",
    });
    assert.deepEqual(splitCauseMessage('Invalid value: "x": bad'), { message: 'Invalid value: "x": bad' });
  });
});

describe("rule actions on warnings", () => {
  const unversioned = () => {
    const module = helmModule();
    if (module.spec.helm?.chart.repo) delete module.spec.helm.chart.repo.version;
    return module;
  };
  const review = () => admissionReview({ operation: "CREATE", object: unversioned() }).request;

  it("drops the warnings of a warning rule set to off, from the webhook's answer too", async () => {
    const request = review();
    assert.ok(request);
    const shown = await validate(moduleKind, request);
    assert.deepEqual(shown.warnings, [
      "spec.helm.chart.repo.version is not set: every reconcile installs the newest chart version",
    ]);
    const ruleActions = parseRuleActions(["module.chart-version-unset=off"]);
    checkRuleIds(ruleActions, resourceKinds);
    const silenced = await validate(moduleKind, request, { ruleActions });
    assert.deepEqual([silenced.allowed, silenced.warnings], [true, undefined]);
  });

  it("silences the warnings of every kind by rule id: unknown fields, a mandatory version moved lower", async () => {
    const space = workspace() as { spec: Record<string, unknown> };
    space.spec.colour = "blue";
    const spaceRequest = admissionReview({ operation: "CREATE", object: space, kind: "Workspace" }).request;
    const older = {
      ...kedaReleaseMeta(),
      spec: { ...kedaReleaseMeta().spec, mandatory: { version: "1.2.0" } },
    };
    const lower = { ...older, spec: { ...older.spec, mandatory: { version: "1.1.0" } } };
    const metaRequest = releaseMetaReview({ operation: "UPDATE", object: lower, oldObject: older }).request;
    assert.ok(spaceRequest && metaRequest);
    const judged = async (ruleActions?: ReturnType<typeof parseRuleActions>) => [
      (await validate(workspaceKind, spaceRequest, { ruleActions })).warnings,
      (await validate(moduleReleaseMetaKind, metaRequest, { ruleActions })).warnings,
    ];
    const [spaceWarnings, metaWarnings] = await judged();
    assert.deepEqual(spaceWarnings, ['unknown field "spec.colour"']);
    assert.match(
      metaWarnings?.join("\n") ?? "",
      /1\.2\.0 -> 1\.1\.0 is lower: lifecycle-manager downgrades every Kyma/,
    );
    const ruleActions = parseRuleActions([
      "workspace.unknown-field=off",
      "modulereleasemeta.mandatory-downgrade=off",
    ]);
    checkRuleIds(ruleActions, resourceKinds);
    assert.deepEqual(await judged(ruleActions), [undefined, undefined]);
  });

  it("refuses deny for a rule that only warns, naming it", () => {
    assert.throws(
      () => checkRuleIds(parseRuleActions(["module.unknown-field=deny"]), resourceKinds),
      /module\.unknown-field only warns: give warn or off/,
    );
  });
});
