import { readFileSync } from "node:fs";
import { byRule, type FieldErrorList } from "../../admission/field-errors.js";
import type { Focus, ResourceKind, Verdict } from "../../admission/resource-kind.js";
import { WorkBudget } from "../../budget/work-budget.js";
import type { Module } from "../../generated/module.js";
import { structureChecker } from "../../validation/structure.js";
import { fitWarning } from "../../validation/warning.js";
import { configValidator } from "./config-validator-cache.js";
import { applyModuleDefaults } from "./defaults.js";
import { validateSpec } from "./spec-rules.js";
import { validateTemplates } from "./template-rules.js";
import { readableSpec, validateSpecUpdate } from "./update-rules.js";
import { moduleWarnings } from "./warnings.js";
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
 * Every rule for one Module. The structural check comes first: the rules after it rely on the
 * generated types, as they can in a cluster, where the API server has checked the schema already.
 * With a focus, only the parts with a rule it names run, and no warnings are gathered.
 */
function validateModule(
  object: unknown,
  workspaceRules: (module: Module) => FieldErrorList,
  focus?: Focus,
): Verdict {
  const structure = checkStructure(object);
  const unknown = focus ? [] : structure.unknownFields.map((field) => fitWarning(`unknown field "${field}"`));
  if (structure.errors.length > 0)
    return { errors: byRule("module.schema", structure.errors), warnings: unknown };
  const module = object as Module;
  const errors: FieldErrorList = [];
  const warnings = unknown;
  const config =
    runs("configSchema", focus) || runs("configValues", focus)
      ? configValidator(module.config ?? [])
      : undefined;
  if (config) {
    errors.push(...config.schema.errors);
    warnings.push(...config.schema.warnings);
  }
  if (runs("spec", focus)) errors.push(...validateSpec(module.spec));
  if (config) {
    const source = module.spec.custom && !module.spec.helm ? "custom" : "helm";
    const values = config.validateValues(module.spec.config ?? {}, source);
    errors.push(...values.errors);
    warnings.push(...values.warnings);
  }
  if (runs("templates", focus)) {
    // Issue 22: one WorkBudget per object for template execution, until issue 21 passes the review's
    // own budget to every rule: rewire here (the only place it is made).
    const templates = validateTemplates(module, new WorkBudget());
    errors.push(...templates.errors);
    warnings.push(...templates.warnings);
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
    validator: {
      // A Workspace deleted since the Module was stored fails the old object too, so the protocol
      // layer's ratcheting lets such a Module still be updated (its finalizer removed) and deleted.
      validate: (module, _request, focus) => validateModule(module, workspaceRules, focus),
      // Never skipped: an old object that fails today's schema is read as far as it can be.
      validateTransition: (oldObject, module) => {
        // Both valid (what the API server stores): every immutable field. Otherwise what can be read
        // of them, so that an off-schema stored object still keeps its release.
        const valid =
          checkStructure(oldObject).errors.length === 0 && checkStructure(module).errors.length === 0;
        const [before, after] = valid
          ? [oldObject.spec, module.spec]
          : [readableSpec(oldObject), readableSpec(module)];
        return { errors: validateSpecUpdate(before, after), warnings: [] };
      },
    },
    defaulter: { applyDefaults: applyModuleDefaults },
  };
}

export const moduleKind: ResourceKind<Module> = createModuleKind();
