import type { PolicyValidation } from "../admission/rule-catalogue.js";
import type { ValidationRule } from "../cel/crd-validator.js";
import { withoutOptionalOldSelf } from "../cel/optional-old-self.js";
import { celString, isUpdate, present } from "../cel/policy-cel.js";
import { rebind } from "../cel/rebind.js";
import { inlineRefs, type JsonSchema, type SchemaSource } from "../schema/schema-source.js";

/** A CRD validation rule of a schema source, where it stands, and the webhook rule its message names. */
export interface TaggedCrdRule {
  rule: string;
  /** The schema node's path from the object: property names, `[]` for a list's items. */
  at: string[];
  validation: ValidationRule;
}

/** `... (rule module.release-name)` at the end of a message or message expression. */
const ruleTag = /\(rule ([a-z0-9-]+\.[a-z0-9.-]+)\)'?\s*$/;

/** The rule a CRD rule's message (or an error showing it) names at its end, if it names one. */
export function taggedRuleId(message: string): string | undefined {
  return ruleTag.exec(message)?.[1];
}

/** Every `x-kubernetes-validations` entry of a schema source whose message names a rule, by rule. */
export function crdRulesById(source: SchemaSource): Map<string, TaggedCrdRule[]> {
  const found = new Map<string, TaggedCrdRule[]>();
  const visit = (node: JsonSchema, at: string[]) => {
    for (const validation of (node["x-kubernetes-validations"] ?? []) as ValidationRule[]) {
      const rule = ruleTag.exec(validation.messageExpression ?? validation.message ?? "")?.[1];
      if (!rule) continue;
      const list = found.get(rule) ?? [];
      list.push({ rule, at, validation });
      found.set(rule, list);
    }
    for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>))
      visit(child, [...at, name]);
    if (node.items && typeof node.items === "object") visit(node.items as JsonSchema, [...at, "[]"]);
  };
  visit(inlineRefs(source.schema), []);
  return found;
}

/** The field a CRD error at `at` (plus a rule's fieldPath) names, as apimachinery renders it. */
const causes: Record<string, string> = {
  FieldValueRequired: "Required value: ",
  FieldValueForbidden: "Forbidden: ",
  FieldValueDuplicate: "Duplicate value: ",
};

/**
 * A CRD's rules as a policy's validations: `self` bound to the node's value (`object.spec.helm`),
 * `oldSelf` to the old object's; a transition rule judged where the old value exists, as the API
 * server does; a rule that does not read oldSelf spared where the update left its value unchanged
 * (the API server's ratcheting). The message names the field, as the CRD's error does.
 */
export function crdPolicyValidations(rules: readonly TaggedCrdRule[]): PolicyValidation[] {
  return rules.map(({ at, validation }) => {
    if (at.includes("[]")) throw new Error(`a CRD rule under a list (${at.join(".")}): not translated`);
    const node = ["object", ...at].join(".");
    const oldNode = ["oldObject", ...at].join(".");
    const transition = /\boldSelf\b/.test(validation.rule);
    const guard = at.length > 0 ? present(node) : "true";
    const oldGuard = at.length > 0 ? present(oldNode) : "true";
    const bound = (expression: string) =>
      rebind(expression, { self: node, oldSelf: oldNode, oldSelfPresent: `${isUpdate} && ${oldGuard}` });
    const rule = validation.optionalOldSelf ? withoutOptionalOldSelf(validation.rule) : validation.rule;
    const holds = validation.optionalOldSelf
      ? `!(${guard}) || (${bound(rule)})`
      : transition
        ? `!(${guard} && ${oldGuard}) || (${bound(rule)})`
        : `!(${guard}) || (${bound(rule)}) || (${isUpdate} && ${oldGuard} && ${oldNode} == ${node})`;
    const field = [...at, ...(validation.fieldPath ?? "").split(".").filter((step) => step !== "")].join(".");
    const cause = causes[validation.reason ?? ""] ?? "Invalid value: ";
    // The generator names the rule at the end of every message, as the CRD's message does.
    const message = validation.messageExpression
      ? bound(validation.messageExpression.replace(/\s*\(rule [^)]*\)'\s*$/, "'"))
      : celString(
          (validation.message ?? `failed rule: ${validation.rule}`).replace(/\s*\(rule [^)]*\)\s*$/, ""),
        );
    return {
      expression: holds,
      messageExpression: `${celString(`${field}: ${cause}`)} + ${message}`,
    };
  });
}
