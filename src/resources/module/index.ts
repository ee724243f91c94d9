import { byRule, type FieldErrorList } from "../../admission/field-errors.js";
import type { Focus, ResourceKind, Verdict } from "../../admission/resource-kind.js";
import { type IdsOf, runsUnder } from "../../admission/rule-catalogue.js";
import { ruleWarnings, type Warning } from "../../admission/warning.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import { present } from "../../cel/policy-cel.js";
import type { Module, ModuleSpec } from "../../generated/module.js";
import { defineKind, type GateRuleIds } from "../define-kind.js";
import type { WorkspaceLookup } from "../lookups.js";
import { configSchemaRules } from "./config-schema-rules.js";
import { configValidator } from "./config-validator-cache.js";
import { configValueRules } from "./config-values-rules.js";
import { applyModuleDefaults } from "./defaults.js";
import { installInputRules } from "./install-inputs.js";
import { specRules, validateSpec } from "./spec-rules.js";
import { templateRules, validateTemplates } from "./template-rules.js";
import { moduleUpdateRules, validateSpecUpdate } from "./update-rules.js";
import { moduleWarningRules, moduleWarnings } from "./warnings.js";
import { validateWorkspaceReference, workspaceReferenceRules } from "./workspace-rules.js";

/** The Module's rules, each declared beside its check. */
const moduleRules = [
  ...specRules,
  ...configSchemaRules,
  ...configValueRules,
  ...templateRules,
  ...workspaceReferenceRules,
  ...moduleUpdateRules,
  ...moduleWarningRules,
];

// The kind's rule ids, so that its emit sites accept only these (src/admission/rule-catalogue.ts).
declare module "../../admission/rule-catalogue.js" {
  interface DeclaredRuleIds extends IdsOf<typeof moduleRules>, GateRuleIds<"module"> {}
}

/**
 * Every rule for one Module, after the structure gate (`defineKind`): the rules rely on the generated
 * types, so they read the part of the Module its schema accepts. With a focus, only the checks with a
 * rule it names run (each check's rules are declared beside it), and no warnings are gathered.
 */
function validateRules(
  module: Module,
  sent: unknown,
  workspaceRules: (module: Module) => FieldErrorList,
  focus: Focus | undefined,
  budget: WorkBudget,
): Verdict {
  const errors: FieldErrorList = [];
  const warnings: Warning[] = [];
  const config =
    runsUnder(configSchemaRules, focus) || runsUnder(configValueRules, focus)
      ? configValidator(module.config ?? [], budget)
      : undefined;
  if (config) {
    append(errors, config.schema.errors);
    append(warnings, ruleWarnings("module.config-schema-warning", config.schema.warnings));
  }
  if (runsUnder(specRules, focus)) append(errors, validateSpec(module.spec, sentSpec(sent)));
  if (config) {
    const source = module.spec.custom && !module.spec.helm ? "custom" : "helm";
    const values = config.validateValues(module.spec.config ?? {}, source, budget);
    append(errors, values.errors);
    append(warnings, ruleWarnings("module.config-undeclared", values.warnings));
  }
  // Template execution also finds the install inputs' rules on what the templates render.
  if (runsUnder(templateRules, focus) || runsUnder(installInputRules, focus)) {
    // Template analysis and execution charge this review's budget.
    const templates = validateTemplates(module, budget, sentSpec(sent));
    append(errors, templates.errors);
    append(warnings, ruleWarnings("module.template-warning", templates.warnings));
  }
  if (runsUnder(workspaceReferenceRules, focus)) append(errors, workspaceRules(module));
  if (focus) return { errors, warnings: [] };
  return { errors, warnings: [...warnings, ...moduleWarnings(module)] };
}

/** The spec of an object as sent, or undefined. */
const sentSpec = (sent: unknown): unknown =>
  sent !== null && typeof sent === "object" ? (sent as { spec?: unknown }).spec : undefined;

/** `items` added to `list` one by one: a spread of a list as long as its input can overflow the stack. */
function append<T>(list: T[], items: readonly T[]): void {
  for (const item of items) list.push(item);
}

export interface ModuleKindDependencies {
  /** Without it, spec.workspace is not checked (no cluster to ask). */
  workspaceExists?: WorkspaceLookup;
}

/** The Module kind; its rules stay pure, the Workspace lookup comes in from the caller. */
export function createModuleKind(dependencies: ModuleKindDependencies = {}): ResourceKind {
  const { workspaceExists } = dependencies;
  const workspaceRules = (module: Module): FieldErrorList =>
    workspaceExists
      ? byRule("module.workspace-exists", validateWorkspaceReference(module.spec.workspace, workspaceExists))
      : [];
  return defineKind<Module, ModuleSpec>({
    schema: "module",
    schemaUpstream:
      "forkspacer/forkspacer v0.1.24 crds/batch.forkspacer.com_modules.yaml; schemas/module.yaml",
    schemaEnforcement: {
      why: "the CRD's structural schema: ours (forkspacer.mode replace) or the operator's, which has all of ours but releaseName's maxLength of 53",
      callWhen: `${present("object.spec.helm.releaseName")} && object.spec.helm.releaseName.size() > 53`,
    },
    rules: moduleRules,
    // A Workspace deleted since the Module was stored fails the old object too, so the protocol
    // layer's ratcheting lets such a Module still be updated (its finalizer removed) and deleted.
    state: (module, { request, focus, budget }) =>
      validateRules(module, request.object, workspaceRules, focus, budget),
    // An off-schema stored object (a releaseName stored before the 53-character limit) keeps its rules.
    transition: (before, after) => ({
      errors: validateSpecUpdate(before ?? ({} as ModuleSpec), after ?? ({} as ModuleSpec)),
      warnings: [],
    }),
    defaulter: { applyDefaults: applyModuleDefaults },
  });
}

export const moduleKind: ResourceKind = createModuleKind();
