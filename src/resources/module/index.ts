import { readFileSync } from "node:fs";
import { byRule, type FieldErrorList } from "../../admission/field-errors.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
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
 * Every rule for one Module. The structural check comes first: the rules after it rely on the
 * generated types, as they can in a cluster, where the API server has checked the schema already.
 */
function validateModule(object: unknown, extraRules: (module: Module) => FieldErrorList = () => []): Verdict {
  const structure = checkStructure(object);
  const unknown = structure.unknownFields.map((field) => fitWarning(`unknown field "${field}"`));
  if (structure.errors.length > 0)
    return { errors: byRule("module.schema", structure.errors), warnings: unknown };
  const module = object as Module;
  const config = configValidator(module.config ?? []);
  const source = module.spec.custom && !module.spec.helm ? "custom" : "helm";
  const values = config.validateValues(module.spec.config ?? {}, source);
  const templates = validateTemplates(module);
  const errors = [
    ...config.schema.errors,
    ...validateSpec(module.spec),
    ...values.errors,
    ...templates.errors,
    ...extraRules(module),
  ];
  return {
    errors,
    warnings: [
      ...unknown,
      ...config.schema.warnings,
      ...values.warnings,
      ...templates.warnings,
      ...moduleWarnings(module),
    ],
  };
}

/** Every rule id the Module's errors carry (`serve --rule-action` keys). */
const moduleRules = [
  "module.schema",
  "module.source",
  "module.chart-source",
  "module.release-name",
  "module.existing-release-name",
  "module.custom-image",
  "module.config-duplicate-alias",
  "module.config-type",
  "module.config-required-editable",
  "module.config-regex",
  "module.config-min-max",
  "module.config-default",
  "module.config-required",
  "module.config-not-editable",
  "module.config-value",
  "module.config-whole-number",
  "module.multiple-options-value",
  "module.template-syntax",
  "module.template-function",
  "module.template-json-type",
  "module.workspace-exists",
  "module.workspace-immutable",
  "module.config-immutable",
  "module.source-immutable",
  "module.custom-image-immutable",
  "module.release-name-immutable",
  "module.existing-release-immutable",
  "module.helm-namespace-immutable",
  "module.outputs-immutable",
] as const;

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
      validate: (module) => validateModule(module, workspaceRules),
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
