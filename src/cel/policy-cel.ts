import { messageParts, type PolicyValidation } from "../admission/rule-catalogue.js";

/**
 * Builders of the CEL that rule declarations give their ValidatingAdmissionPolicies: a rule written
 * once, beside its check, as a test of one value or of each item of a list, and these add what every
 * such rule needs alike: presence guards (a missing field is an evaluation error in CEL), ratcheting
 * (on UPDATE a problem the old object had at the same place, unchanged, does not deny, as the webhook's
 * ratcheting spares it), and a message that starts with the field, as apimachinery's field errors do.
 * The generator (src/codegen/native-policies.ts) appends the rule id to every message.
 *
 * Only CEL that Kubernetes 1.30 and later evaluate is used: the standard macros, the strings extension,
 * and the Kubernetes list library's `indexOf` (no two-variable comprehensions, no optionals), so that
 * src/cel/policy-evaluator.ts evaluates the same text offline.
 */

/** `object.spec.helm.releaseName` → `has(object.spec) && has(object.spec.helm) && has(object.spec.helm.releaseName)`. */
export function present(path: string): string {
  const steps = path.split(".");
  const guards: string[] = [];
  for (let i = 2; i <= steps.length; i++) guards.push(`has(${steps.slice(0, i).join(".")})`);
  return guards.join(" && ");
}

/** The same path on the old object (`object.spec` → `oldObject.spec`). */
export function onOld(path: string): string {
  if (!path.startsWith("object.")) throw new Error(`not a path below object: ${path}`);
  return `oldObject.${path.slice("object.".length)}`;
}

/** A CEL string literal. */
export function celString(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'").replaceAll("\n", "\\n")}'`;
}

export const isUpdate = "request.operation == 'UPDATE'";

/**
 * A rule's declared message (`RuleDeclaration.messages`) as a CEL string expression: its text as CEL
 * string literals, each placeholder the CEL expression `data` gives (a string), so that the policy says
 * what the TypeScript check says (`formatMessage`) from the one declaration.
 */
export function celMessage(text: string, data: Readonly<Record<string, string>> = {}): string {
  const { literals, names } = messageParts(text);
  const parts: string[] = [];
  literals.forEach((literal, i) => {
    if (literal !== "" || (i === 0 && names.length === 0)) parts.push(celString(literal));
    const name = names[i];
    if (name === undefined) return;
    const expression = data[name];
    if (expression === undefined) throw new Error(`message ${JSON.stringify(text)}: no CEL for {${name}}`);
    parts.push(`(${expression})`);
  });
  return parts.join(" + ");
}

/** A value shown in a message as apimachinery quotes a string: `"Redis_Main"`. */
export const quoted = (value: string) => `'"' + ${value} + '"'`;

interface ValueRule {
  /** The value's path below `object` (`object.spec.helm.releaseName`); the rule holds where it is absent. */
  path: string;
  /** Its field as the webhook names it (`spec.helm.releaseName`). */
  field: string;
  /** CEL that holds when the value (`v`, the path's text) passes. */
  ok: (v: string) => string;
  /** CEL string: the message after the field (`'Invalid value: ...'`). */
  detail: (v: string) => string;
  /** A state rule (the default) spares a value an UPDATE left unchanged; a transition rule does not. */
  ratchet?: boolean;
}

/** A rule on one value: it holds when the value is absent, passes, or (ratcheting) is unchanged. */
export function valueRule(rule: ValueRule): PolicyValidation {
  const v = rule.path;
  const spared =
    rule.ratchet === false ? "false" : `(${isUpdate} && ${present(onOld(v))} && ${onOld(v)} == ${v})`;
  return {
    expression: `!(${present(v)}) || (${rule.ok(v)}) || ${spared}`,
    messageExpression: `${celString(`${rule.field}: `)} + ${rule.detail(v)}`,
  };
}

interface ItemRule {
  /** The list's path below `object` (`object.config`); the rule holds where it is absent. */
  list: string;
  /** The list's field as the webhook names it (`config`). */
  field: string;
  /** CEL that holds when an item (`item`) passes. */
  ok: (item: string) => string;
  /** CEL string: the part of the field below the item (`'.alias'`), if any. */
  below?: (item: string) => string;
  /** CEL string: the message after the field. */
  detail: (item: string) => string;
  /**
   * What spares a failing item on UPDATE (the old item at the same index as `old`): by default an item
   * the update left as it was, as the webhook's ratcheting spares an unchanged item's problem.
   */
  spare?: ((item: string, old: string) => string) | false;
}

/**
 * A rule on each item of a list: it holds when every item passes or is spared. The message names the
 * first item that fails, by its index (the Kubernetes list library's `indexOf`: an item equal to an
 * earlier one is named by the earlier, which fails alike).
 */
export function itemRule(rule: ItemRule): PolicyValidation {
  const list = rule.list;
  const index = (item: string) => `${list}.indexOf(${item})`;
  const spare = rule.spare;
  const sameAsOld =
    spare === false ? undefined : (spare ?? ((item: string, old: string) => `${old} == ${item}`));
  const spared = (item: string) =>
    sameAsOld
      ? `(${isUpdate} && ${present(onOld(list))} && ${onOld(list)}.size() > ${index(item)} && ${sameAsOld(item, `${onOld(list)}[${index(item)}]`)})`
      : "false";
  const passes = (item: string) => `(${rule.ok(item)}) || ${spared(item)}`;
  const field = (item: string) =>
    `${celString(`${rule.field}[`)} + string(${index(item)}) + ']'${rule.below ? ` + ${rule.below(item)}` : ""}`;
  return {
    expression: `!(${present(list)}) || ${list}.all(item, ${passes("item")})`,
    messageExpression: `${list}.filter(item, !(${passes("item")})).map(item, ${field("item")} + ': ' + ${rule.detail("item")})[0]`,
  };
}

/** A rule on the whole object (a condition across fields); its message names `field` as given. */
export function objectRule(rule: { ok: string; field: string; detail: string }): PolicyValidation {
  return {
    expression: rule.ok,
    messageExpression: `${celString(`${rule.field}: `)} + ${rule.detail}`,
  };
}
