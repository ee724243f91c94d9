import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldError } from "../../src/admission/field-errors.js";
import { causeMessage, splitCauseMessage } from "../../src/admission/field-errors.js";
import { applyRuleActions, checkRuleIds, parseRuleActions } from "../../src/admission/rule-actions.js";
import { resourceKinds } from "../../src/resources/index.js";

const error = (rule: string | undefined, field: string): FieldError => ({
  type: "invalid",
  field,
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
    assert.doesNotThrow(() => checkRuleIds(parseRuleActions(["moduletemplate.links=warn"]), resourceKinds));
    assert.throws(
      () => checkRuleIds(parseRuleActions(["module.relase-name=warn"]), resourceKinds),
      /no rule "module.relase-name"; the rules are .*module\.release-name/,
    );
  });

  it("keeps denying errors, turns warn rules into warnings in kubectl's wording, drops off rules", () => {
    const errors = [error("module.a", "spec.a"), error("module.b", "spec.b"), error(undefined, "spec.c")];
    const actions = parseRuleActions(["module.a=warn", "module.b=off"]);
    assert.deepEqual(applyRuleActions(errors, actions), {
      errors: [error(undefined, "spec.c")],
      warnings: ['spec.a: Invalid value: "x": bad'],
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
