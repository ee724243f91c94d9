import type { RuleAction } from "./rule-actions.js";

/**
 * An error rule denies what the real system will certainly refuse or fail on (a rule action may make it
 * warn, or turn it off); a warning rule finds what is legal but may go wrong (it warns, or is off).
 */
export type Severity = "error" | "warning";

/**
 * One rule, declared once beside its check: what `serve --rule-action` accepts, what docs/rules.md,
 * the chart's values schema and SARIF's rule metadata say of it, and what ratcheting's focus runs.
 */
export interface RuleDeclaration<Id extends string = string> {
  /** `module.release-name`: `<kind>.<rule>`, stable (rule actions and reports name it). */
  id: Id;
  severity: Severity;
  /** One line: what the rule finds. */
  summary: string;
  /** What the real system (the operator, the API server, Helm) does with such an object. */
  realSystem: string;
  /** Why we deny where the real system does not (or not yet): only for rules stricter than it. */
  stricter?: string;
  /** Fields our CRD checks the same rule on (its schema or CEL rules), which then deny it first. */
  restatedAt?: readonly string[];
  /** The code or documentation the rule follows (repository path, function, or document). */
  upstream: string;
  /** An update-only rule (`validateTransition`): judged on UPDATE, never ratcheted. */
  transition?: boolean;
  /** A rule no rule action reaches (the work budget: an object is never admitted unjudged). */
  fixed?: boolean;
  /** Where the API server can enforce the rule without the webhook (docs/native-policies.md). */
  native: Native;
  /**
   * The rule's wording, declared once for its TypeScript check and its native policy's CEL (as
   * typescript-eslint's `meta.messages`): texts keyed by id, with `{name}` placeholders that the check
   * fills with values (`formatMessage`) and the policy with CEL expressions (`celMessage`). Every rule
   * with a native policy declares its messages (test/policies/rule-messages.test.ts).
   */
  messages?: RuleMessages;
}

/** A rule's message texts, keyed by id; `{name}` marks a placeholder. */
export type RuleMessages = Readonly<Record<string, string>>;

/**
 * A message text split at its placeholders: `literals` has one more entry than `names` (the text
 * before the first placeholder, between each two, and after the last).
 */
export function messageParts(text: string): { literals: string[]; names: string[] } {
  const literals: string[] = [];
  const names: string[] = [];
  let rest = text;
  for (let match = placeholder.exec(rest); match; match = placeholder.exec(rest)) {
    literals.push(rest.slice(0, match.index));
    names.push(match[1] as string);
    rest = rest.slice(match.index + match[0].length);
  }
  literals.push(rest);
  return { literals, names };
}

const placeholder = /\{([A-Za-z][A-Za-z0-9]*)\}/;

/**
 * A declared message with its placeholders filled in (`data` gives each one's text: what the
 * TypeScript check found). A placeholder without data is a bug of the rule, and throws.
 */
export function formatMessage(text: string, data: Readonly<Record<string, string>> = {}): string {
  const { literals, names } = messageParts(text);
  let message = literals[0] ?? "";
  names.forEach((name, i) => {
    const value = data[name];
    if (value === undefined) throw new Error(`message ${JSON.stringify(text)}: no value for {${name}}`);
    message += value + (literals[i + 1] ?? "");
  });
  return message;
}

/**
 * Where a rule runs natively: `schema`, the CRD's structural schema (types, bounds, list types);
 * `crd`, CEL rules of the kind's schema source whose message ends `(rule <id>)` (for the Forkspacer kinds,
 * whose CRD may be ours; the chart turns them into ValidatingAdmissionPolicies where it is not); `policy`,
 * a ValidatingAdmissionPolicy (bound Deny for an error rule, Warn for a warning rule); `webhook`, only the
 * webhook, with the reason, and when the narrowed webhook must still be called for it (CEL on
 * `object`, `oldObject` and `request`; always, without it).
 */
export type Native =
  | { by: "schema"; why: string; callWhen?: string }
  | { by: "crd" }
  | { by: "policy"; policy: NativePolicy }
  | { by: "webhook"; why: string; callWhen?: string };

/** A rule as a ValidatingAdmissionPolicy's validations (src/cel/policy-cel.ts builds them). */
export interface NativePolicy {
  validations: readonly PolicyValidation[];
  /** An evaluation error admits (failurePolicy Ignore): a user's regex may not compile, as the webhook allows. */
  errorsAdmit?: boolean;
  /**
   * CEL that holds when the object may be too large for the policy to evaluate within the API server's
   * runtime cost limit (its lists are compared item by item): the policy then admits on the error
   * (failurePolicy Ignore), and a narrowed webhook is called, so the rule is judged all the same.
   */
  largeWhen?: string;
  /**
   * The rule judges a metadata value (an annotation): it also runs on metadata/status-only updates,
   * which may change that value, and its validations pass an unchanged value themselves (ratcheting).
   */
  judgesMetadata?: boolean;
  /**
   * Why the policy's message says less than the webhook's (CEL cannot tell which of an item's
   * constraints fails): it is then one of the rule's declared messages of its own, not the check's.
   */
  coarserMessage?: string;
}

/** One validation: `expression` holds when the object passes; `messageExpression` names field and rule. */
export interface PolicyValidation {
  expression: string;
  messageExpression: string;
}

/**
 * A mutation (a kind's defaulting, which the mutating webhook applies), declared beside its defaulter:
 * what docs/rules.md and the generated MutatingAdmissionPolicies say of it.
 */
export interface MutationDeclaration {
  /** `module.release-name-default`: `<kind>.<mutation>`. */
  id: string;
  summary: string;
  native: { by: "policy"; policy: NativeMutation } | { by: "webhook"; why: string };
}

/**
 * A mutation as a MutatingAdmissionPolicy (Kubernetes 1.34+): it adds one field. The first case whose
 * `when` holds gives the value; the mutating webhook is still called where `callWhen` holds (what CEL
 * cannot do: randomness, a name not yet generated).
 */
export interface NativeMutation {
  /** The JSON pointer of the field it adds (or replaces). */
  path: string;
  cases: readonly { operation: "CREATE" | "UPDATE"; when: string; value: string }[];
  callWhen: string;
}

type Declared = Omit<RuleDeclaration, "id" | "severity">;

/** Error rules, keyed by id; their ids stay literal types (what `IdsOf` declares). */
export function errorRules<const Id extends string>(
  rules: Record<Id, Declared>,
): readonly RuleDeclaration<Id>[] {
  return declarations(rules, "error");
}

/** Warning rules, keyed by id; their ids stay literal types (what `IdsOf` declares). */
export function warningRules<const Id extends string>(
  rules: Record<Id, Declared>,
): readonly RuleDeclaration<Id>[] {
  return declarations(rules, "warning");
}

function declarations<Id extends string>(
  rules: Record<Id, Declared>,
  severity: Severity,
): readonly RuleDeclaration<Id>[] {
  // Object.entries types its keys as string: they are the record's, Id.
  return Object.entries<Declared>(rules).map(([id, rule]) => ({ id: id as Id, severity, ...rule }));
}

/**
 * Every declared rule id, as the keys of this interface, so that an emit site (`byRule`,
 * `ruleWarnings`) accepts only a declared id and a misspelt one fails `tsc` (as typescript-eslint's
 * message ids are a type). Each kind adds its own ids where it gathers its rules, by declaration merging:
 * `declare module "…/admission/rule-catalogue.js" { interface DeclaredRuleIds extends IdsOf<typeof rules> {} }`.
 * Types only: nothing of it exists at run time.
 */
export interface DeclaredRuleIds extends IdsOf<typeof protocolRules> {}

/** A declared rule id: what an error or a rule warning may be tagged with. */
export type RuleId = keyof DeclaredRuleIds;

/** The ids of some declarations, as the keys `DeclaredRuleIds` is extended with. */
export type IdsOf<Rules extends readonly RuleDeclaration[]> = Record<Rules[number]["id"], true>;

/** The action a rule has when `--rule-action` does not name it. */
export function defaultAction(rule: RuleDeclaration): RuleAction {
  return rule.severity === "error" ? "deny" : "warn";
}

/** The actions a rule may be given: a warning rule finds what is legal, so it never denies. */
export function allowedActions(rule: RuleDeclaration): readonly RuleAction[] {
  return rule.severity === "error" ? ["deny", "warn", "off"] : ["warn", "off"];
}

/** The ids of some rules: what a focus (ratcheting's look at an old object) is compared with. */
export function idsOf(rules: readonly RuleDeclaration[]): string[] {
  return rules.map((rule) => rule.id);
}

/** Whether a check whose rules are `rules` must run: always, unless a focus names none of them. */
export function runsUnder(
  rules: readonly RuleDeclaration[],
  focus: { errorsOf: ReadonlySet<string> } | undefined,
) {
  return !focus || rules.some((rule) => focus.errorsOf.has(rule.id));
}

/**
 * The protocol layer's own rules, for every kind alike. The work budget is fixed: a required check
 * that ran out of work denies, as no object may be admitted unjudged.
 */
export const protocolRules = errorRules({
  "webhook.work-budget": {
    summary:
      "judging the object costs more than one review's work budget (12 million units, 3 MiB of rendered template output) or its worker's CPU deadline (1 s by default, serve --review-deadline-ms), or the object is larger than the 3 MiB of JSON the API server accepts from a client",
    realSystem:
      "the operators judge any object however long it takes; the API server bounds only size and depth (a request body of 3 MiB; etcd stores 1.5 MiB by default)",
    stricter:
      "bounded work per review: no input may hang the webhook or spread its cost over many rules; no real object comes near. An object over 3 MiB reaches a webhook only from a client writing YAML or CBOR more compactly than JSON, or grown by a mutating webhook called before this one, and is stored only by a cluster whose etcd stores more than its default",
    upstream: "this project's src/budget/work-budget.ts",
    fixed: true,
    // The API server bounds CEL by its own cost limits; a narrowed webhook's budget matters only when called.
    native: { by: "webhook", why: "the webhook's own bound on its work", callWhen: "false" },
  },
});
