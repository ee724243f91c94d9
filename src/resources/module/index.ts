import { readFileSync } from "node:fs";
import { byRule, type FieldErrorList } from "../../admission/field-errors.js";
import type { Focus, ResourceKind, Verdict } from "../../admission/resource-kind.js";
import { fitWarning, ruleWarnings, type Warning } from "../../admission/warning.js";
import { WorkBudget } from "../../budget/work-budget.js";
import type { Module, ModuleSpec } from "../../generated/module.js";
import { onReadableSpecs, readablePart } from "../../validation/readable.js";
import { structureChecker } from "../../validation/structure.js";
import { configValidator } from "./config-validator-cache.js";
import { applyModuleDefaults } from "./defaults.js";
import { validateSpec } from "./spec-rules.js";
import { validateTemplates } from "./template-rules.js";
import { validateSpecUpdate } from "./update-rules.js";
import { moduleWarningRules, moduleWarnings } from "./warnings.js";
import { validateWorkspaceReference, type WorkspaceLookup } from "./workspace-rules.js";

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemaUrl = new URL("../../../schemas/dist/module.schema.json", import.meta.url);
const checkStructure = structureChecker(JSON.parse(readFileSync(schemaUrl, "utf8")));

/**
 * The state rules' ids, by the part of `validateModule` that finds them: ratcheting's look at the old
 * object runs only the parts whose rules the new object failed.
 */
const stateRules = {
  configSchema: [
    "module.config-duplicate-alias",
    "module.config-type",
    "module.config-required-editable",
    "module.config-regex",
    "module.config-min-max",
    "module.config-default",
  ],
  spec: [
    "module.source",
    "module.chart-source",
    "module.git-url",
    "module.git-auth",
    "module.release-name",
    "module.existing-release-name",
    "module.existing-release-template",
    "module.custom-image",
  ],
  configValues: [
    "module.config-required",
    "module.config-not-editable",
    "module.config-value",
    "module.config-whole-number",
    "module.multiple-options-value",
  ],
  templates: [
    "module.template-syntax",
    "module.template-function",
    "module.template-exec",
    "module.template-json-type",
  ],
  workspace: ["module.workspace-exists"],
} as const;

type RuleGroup = keyof typeof stateRules;

/** The update-only rules (`validateTransition`): never ratcheted, so never asked of an old object. */
const transitionRules = [
  "module.workspace-immutable",
  "module.config-immutable",
  "module.source-immutable",
  "module.custom-image-immutable",
  "module.release-name-immutable",
  "module.existing-release-immutable",
  "module.helm-namespace-immutable",
  "module.outputs-immutable",
] as const;

/** Every rule id the Module's errors carry (`serve --rule-action` keys). */
const moduleRules = ["module.schema", ...Object.values(stateRules).flat(), ...transitionRules] as const;

/** Whether a part of the rules must run: always, unless a focus names none of its rules. */
function runs(group: RuleGroup, focus: Focus | undefined): boolean {
  return !focus || stateRules[group].some((rule) => focus.errorsOf.has(rule));
}

/**
 * Every rule for one Module. The structural check comes first, and is field-scoped: the rules after it
 * rely on the generated types, so they read the part of the Module its schema accepts (a field of the
 * wrong shape costs only the rules that read it; every other rule still runs). With a focus, only the
 * parts with a rule it names run, and no warnings are gathered.
 */
function validateModule(
  object: unknown,
  workspaceRules: (module: Module) => FieldErrorList,
  focus: Focus | undefined,
  budget: WorkBudget,
): Verdict {
  const structure = checkStructure(object, budget);
  const unknown: Warning[] = focus
    ? []
    : ruleWarnings(
        "module.unknown-field",
        structure.unknownFields.map((field) => fitWarning(`unknown field "${field}"`)),
      );
  if (structure.errors.length === 0) {
    return validateRules(object as Module, workspaceRules, focus, unknown, budget);
  }
  const schemaErrors = byRule("module.schema", structure.errors);
  const readable = readablePart<Module>(object, (part) => checkStructure(part).shape, "any", structure.shape);
  if (!readable.object) return { errors: schemaErrors, warnings: unknown };
  const rules = validateRules(readable.object, workspaceRules, focus, unknown, budget);
  return {
    errors: [...schemaErrors, ...rules.errors.filter(readable.keeps).map(readable.restore)],
    warnings: rules.warnings,
  };
}

function validateRules(
  module: Module,
  workspaceRules: (module: Module) => FieldErrorList,
  focus: Focus | undefined,
  unknown: Warning[],
  budget: WorkBudget,
): Verdict {
  const errors: FieldErrorList = [];
  const warnings: Warning[] = [...unknown];
  const config =
    runs("configSchema", focus) || runs("configValues", focus)
      ? configValidator(module.config ?? [])
      : undefined;
  if (config) {
    errors.push(...config.schema.errors);
    warnings.push(...ruleWarnings("module.config-schema-warning", config.schema.warnings));
  }
  if (runs("spec", focus)) errors.push(...validateSpec(module.spec));
  if (config) {
    const source = module.spec.custom && !module.spec.helm ? "custom" : "helm";
    const values = config.validateValues(module.spec.config ?? {}, source, budget);
    errors.push(...values.errors);
    warnings.push(...ruleWarnings("module.config-undeclared", values.warnings));
  }
  if (runs("templates", focus)) {
    // Template analysis and execution charge this review's budget.
    const templates = validateTemplates(module, budget);
    errors.push(...templates.errors);
    warnings.push(...ruleWarnings("module.template-warning", templates.warnings));
  }
  if (runs("workspace", focus)) errors.push(...workspaceRules(module));
  if (focus) return { errors, warnings: [] };
  return { errors, warnings: [...warnings, ...moduleWarnings(module)] };
}

export interface ModuleKindDependencies {
  /** Without it, spec.workspace is not checked (no cluster to ask). */
  workspaceExists?: WorkspaceLookup;
}

/** The Module kind; its rules stay pure, the Workspace lookup comes in from the caller. */
export function createModuleKind(dependencies: ModuleKindDependencies = {}): ResourceKind<Module> {
  const { workspaceExists } = dependencies;
  const workspaceRules = (module: Module): FieldErrorList =>
    workspaceExists
      ? byRule("module.workspace-exists", validateWorkspaceReference(module.spec.workspace, workspaceExists))
      : [];
  return {
    group: "batch.forkspacer.com",
    version: "v1",
    kind: "Module",
    rules: moduleRules,
    warningRules: moduleWarningRules,
    validator: {
      // A Workspace deleted since the Module was stored fails the old object too, so the protocol
      // layer's ratcheting lets such a Module still be updated (its finalizer removed) and deleted.
      validate: (module, _request, focus, budget = new WorkBudget()) =>
        validateModule(module, workspaceRules, focus, budget),
      // Never skipped: each side is read as far as its values have the right type, so that an
      // off-schema stored object (a releaseName stored before the 53-character limit) keeps its rules.
      validateTransition: (oldObject, module, _request, budget) =>
        onReadableSpecs<ModuleSpec>(
          checkStructure,
          oldObject,
          module,
          (before, after) => ({
            errors: validateSpecUpdate(before ?? ({} as ModuleSpec), after ?? ({} as ModuleSpec)),
            warnings: [],
          }),
          budget,
        ),
    },
    defaulter: { applyDefaults: applyModuleDefaults },
  };
}

export const moduleKind: ResourceKind<Module> = createModuleKind();
