import { defaultAction, type RuleDeclaration } from "../admission/rule-catalogue.js";
import { ruleAnchor, rulesDocPath } from "../codegen/rules-doc.js";
import { ruleCatalogue } from "../resources/index.js";

/** What SARIF viewers (GitHub code scanning) show for a rule: its descriptions, help and level. */
export interface RuleHelp {
  short: string;
  full: string;
  help: string;
  /** The rule's entry in the generated rule reference (SARIF `helpUri`). */
  uri?: string;
}

const docs = "See docs/rules.md of module-admission";
const docsUrl = `https://github.com/forkspacer/module-admission/blob/main/${rulesDocPath}`;

let declared: Map<string, RuleDeclaration> | undefined;
/** A declared rule by id (the catalogue read once, on the first finding that needs it). */
function declaration(id: string): RuleDeclaration | undefined {
  declared ??= new Map(ruleCatalogue().flatMap((section) => section.rules.map((rule) => [rule.id, rule])));
  return declared.get(id);
}

/** Rules that are not a kind's: the input, and the API server's own layers. */
const fixed: Record<string, Omit<RuleHelp, "help">> = {
  "input/Unreadable": {
    short: "The file cannot be read or parsed",
    full: "A file named on the command line could not be read, or is not valid YAML or JSON; its objects were not checked.",
  },
  "input/UnknownVersionOrKind": {
    short: "An apiVersion or kind that the group does not serve",
    full: "One of module-admission's kinds at a version its CRD does not serve, a near miss of one (case, plural, a character or two off), or in a group a character or two from a served one: the API server would refuse it (no such resource), and it would never reach the webhook.",
  },
  "input/UnknownKind": {
    short: "A kind without a schema (--strict)",
    full: "With --strict, an object of a kind module-admission has no schema for is an error.",
  },
  "input/TooLarge": {
    short: "An object larger or deeper than the API server accepts",
    full: "The object is more than 3 MiB as JSON (YAML aliases expanded) or nested deeper than the webhook judges.",
  },
};

const layers: Record<string, string> = {
  schema: "the CRD's structural schema (types, formats, bounds, required fields)",
  cel: "a CEL rule of the CRD (x-kubernetes-validations), as the API server evaluates it",
  "mutating-webhook": "the mutating webhook",
  "validating-webhook": "the validating webhook",
};

/** Help for a rule id as findings carry it: `layer/rule` (`validating-webhook/module.source`). */
export function ruleHelp(id: string): RuleHelp {
  const known = fixed[id];
  if (known) return { ...known, help: `${known.full} ${docs}.` };
  const slash = id.indexOf("/");
  const layer = slash < 0 ? "" : id.slice(0, slash);
  const rule = slash < 0 ? id : id.slice(slash + 1);
  const where = layers[layer];
  if (!where) {
    return {
      short: `${rule}`,
      full: `Finding ${rule} of module-admission.`,
      help: `${docs}.`,
    };
  }
  const entry = declaration(rule);
  if (entry) {
    const stricter = entry.stricter ? ` Stricter than the real system: ${entry.stricter}.` : "";
    const full = `${entry.summary} (${where}). The real system: ${entry.realSystem}.${stricter}`;
    // The CRD's rules are the API server's: no rule action reaches them.
    const action = entry.fixed
      ? ""
      : layer === "cel"
        ? " The API server enforces this CRD rule before any webhook is called: no --rule-action reaches it."
        : ` Default ${defaultAction(entry)}; change it with --rule-action ${rule}=${entry.severity === "error" ? "warn|off" : "off"}.`;
    return {
      short: entry.summary,
      full,
      help: `${full}${action} Upstream: ${entry.upstream}.`,
      uri: `${docsUrl}#${ruleAnchor(rule)}`,
    };
  }
  const isRuleId = rule.includes(".");
  const short = isRuleId ? `${rule} (${layer})` : `${rule} from ${layer}`;
  const full = isRuleId
    ? `Rule ${rule} of ${where}. Its rule action can be changed with --rule-action ${rule}=warn|off.`
    : `A ${rule} finding of ${where}.`;
  return { short, full, help: `${full} ${docs}.` };
}
