import { readFileSync } from "node:fs";
import type { FieldErrorList } from "../../admission/field-errors.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import type { Module } from "../../generated/module.js";
import { structureChecker } from "../../validation/structure.js";
import { configValidator } from "./config-validator-cache.js";
import { applyModuleDefaults } from "./defaults.js";
import { validateSpec } from "./spec-rules.js";
import { validateSpecUpdate } from "./update-rules.js";
import { moduleWarnings, warning } from "./warnings.js";

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemaUrl = new URL("../../../schemas/dist/module.schema.json", import.meta.url);
const checkStructure = structureChecker(JSON.parse(readFileSync(schemaUrl, "utf8")));

/**
 * Every rule for one Module. The structural check comes first: the rules after it rely on the
 * generated types, as they can in a cluster, where the API server has checked the schema already.
 */
function validateModule(object: unknown, extraRules: (module: Module) => FieldErrorList = () => []): Verdict {
  const structure = checkStructure(object);
  const unknown = structure.unknownFields.map((field) => warning(`unknown field "${field}"`));
  if (structure.errors.length > 0) return { errors: structure.errors, warnings: unknown };
  const module = object as Module;
  const config = configValidator(module.config ?? []);
  const errors = [
    ...config.schemaErrors,
    ...validateSpec(module.spec),
    ...config.validateValues(module.spec.config ?? {}),
    ...extraRules(module),
  ];
  return { errors, warnings: [...unknown, ...moduleWarnings(module)] };
}

export const moduleKind: ResourceKind<Module> = {
  group: "batch.forkspacer.com",
  version: "v1",
  kind: "Module",
  validator: {
    validateCreate: (module) => validateModule(module),
    validateUpdate: (oldModule, module) =>
      validateModule(module, (valid) =>
        oldModule?.spec ? validateSpecUpdate(oldModule.spec, valid.spec) : [],
      ),
  },
  defaulter: { applyDefaults: applyModuleDefaults },
};
