import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../src/admission/field-errors.js";
import { judgeValidation } from "../../src/admission/handler.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { messageParts, type RuleDeclaration } from "../../src/admission/rule-catalogue.js";
import { warningField, warningRule, warningText } from "../../src/admission/warning.js";
import { celString } from "../../src/cel/policy-cel.js";
import { evaluateValidatingPolicy } from "../../src/cel/policy-evaluator.js";
import { kindOf, offlineKinds } from "../../src/offline/kinds.js";
import { ruleCatalogue } from "../../src/resources/index.js";
import { policyCases } from "../support/policy-cases.js";
import { decodedCase, policiesOf, schemaRefuses } from "../support/policy-parity.js";

/**
 * A rule's wording is declared once (`RuleDeclaration.messages`) and both its TypeScript check and its
 * native policy's CEL say it: the policy's messages are built from the declared texts, and where the
 * webhook and the policy find the same problem they say the same words.
 */
const policyRules = ruleCatalogue()
  .flatMap((group) => group.rules)
  .filter((rule) => rule.native.by === "policy");

/** Whether `expression` holds `text`'s literal parts, as CEL string literals, in order. */
function builtFrom(expression: string, text: string): boolean {
  let at = 0;
  for (const literal of messageParts(text).literals) {
    if (literal === "") continue;
    // The literal may be cut where the policy puts a value of its own between two parts of it.
    const found = expression.indexOf(celString(literal).slice(0, -1), at);
    if (found < 0) return false;
    at = found + literal.length;
  }
  return true;
}

const policyOf = (rule: RuleDeclaration) => (rule.native.by === "policy" ? rule.native.policy : undefined);

describe("a rule's message, declared once for its check and its policy", () => {
  it("every rule with a native policy declares its messages, and each of its validations says one of them", () => {
    assert.ok(policyRules.length >= 28, `${policyRules.length} rules with policies`);
    const problems: string[] = [];
    for (const rule of policyRules) {
      const texts = Object.values(rule.messages ?? {});
      if (texts.length === 0) {
        problems.push(`${rule.id}: declares no messages`);
        continue;
      }
      for (const [i, validation] of (policyOf(rule)?.validations ?? []).entries()) {
        if (!texts.some((text) => builtFrom(validation.messageExpression, text)))
          problems.push(`${rule.id}: validation ${i}'s message is none of its declared messages`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("a message written in a policy by hand is caught", () => {
    const text = "spec.channel is deprecated: {why}";
    assert.ok(builtFrom(`'spec.channel: ' + 'spec.channel is deprecated: ' + (x)`, text));
    assert.ok(!builtFrom(`'spec.channel: ' + 'spec.channel is obsolete: ' + (x)`, text));
  });

  it("the webhook and the policies say the same words on every case table, spec example and corpus object", async () => {
    const kinds = offlineKinds();
    const coarser = new Set(policyRules.filter((rule) => policyOf(rule)?.coarserMessage).map((r) => r.id));
    const differ = new Map<string, string>();
    const compared = new Map<string, number>();
    for (const c of policyCases()) {
      const kind = kindOf(kinds, c.object);
      if (!kind) continue;
      const { object, oldObject } = decodedCase(kind, c);
      if (schemaRefuses(kind, object, oldObject)) continue;
      const update = c.operation === "UPDATE" ? { oldObject } : {};
      const metadata = (object as { metadata?: { name?: unknown } }).metadata;
      const request: AdmissionRequest = {
        uid: "messages",
        kind: { group: kind.kind.group, version: kind.kind.version, kind: kind.kind.kind },
        resource: {
          group: kind.kind.group,
          version: kind.kind.version,
          resource: kind.source.crd.names.plural,
        },
        ...(typeof metadata?.name === "string" ? { name: metadata.name } : {}),
        namespace: "default",
        operation: c.operation,
        object,
        ...update,
      };
      const verdict = await judgeValidation(kind.kind, request);
      const said = new Map<string, string[]>();
      const say = (rule: string | undefined, text: string) => {
        if (rule) said.set(rule, [...(said.get(rule) ?? []), text]);
      };
      for (const error of verdict.errors) say(error.rule, formatFieldError(error));
      // A policy's warning starts with its field, as every message of a policy does (the API server shows
      // a warning alone): the webhook's, with its field, says the rest.
      for (const warning of verdict.warnings) {
        const field = warningField(warning)?.toString();
        const text = warningText(warning);
        say(warningRule(warning), field ? `${field}: ${text}` : text);
      }
      for (const policy of policiesOf(kind)) {
        if (policy.from !== "declaration" || coarser.has(policy.rule)) continue;
        const { failures } = evaluateValidatingPolicy(
          policy.spec,
          {
            operation: c.operation,
            group: kind.kind.group,
            version: kind.kind.version,
            resource: kind.source.crd.names.plural,
            object,
            ...update,
          },
          kind.crdSchema,
        );
        for (const failure of failures) {
          if (failure.error) continue;
          const text = failure.message.replace(/ \(rule [^)]+\)$/, "");
          if ((said.get(policy.rule) ?? []).includes(text))
            compared.set(policy.rule, (compared.get(policy.rule) ?? 0) + 1);
          else
            differ.set(
              `${policy.rule}: ${text}`,
              `${c.name}: the webhook said ${JSON.stringify(said.get(policy.rule) ?? [])}`,
            );
        }
      }
    }
    console.log(
      `same words: ${[...compared.values()].reduce((a, b) => a + b, 0)} messages of ${compared.size} rules; coarser by declaration: ${[...coarser].join(", ")}`,
    );
    assert.deepEqual(
      [...differ].map(([policy, webhook]) => `${policy}\n    ${webhook}`),
      [],
    );
    // Not vacuous: most rules with a policy were compared on some case.
    assert.ok(compared.size + coarser.size >= 20, [...compared.keys()].join(", "));
  });
});
