import { load } from "js-yaml";
import { checkValues } from "../../addon-operator/check-values.js";
import { moduleNameOf, valuesKeyProblem } from "../../addon-operator/module-names.js";
import { isMap } from "../../addon-operator/schema.js";
import type { PathSegment, Violation } from "../../addon-operator/validate.js";
import { byRule, type FieldError, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { Verdict } from "../../admission/resource-kind.js";
import type { LoadedSchemas, SectionSchema } from "./schema-store.js";

type Data = Record<string, unknown>;

const maintenanceModes = ["NoResourceReconciliation", ""];

/**
 * addon-operator's verdict on the `data` of ConfigMap/addon-operator: `global`, `<key>Enabled`,
 * `<key>Maintenance` and module sections, each section checked against its config-values schema.
 */
export function validateConfigMapData(
  data: Data,
  oldData: Data | undefined,
  schemas: LoadedSchemas,
): Verdict {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const dataPath = FieldPath.root("data");
  for (const [key, raw] of Object.entries(data)) {
    const path = dataPath.child(key);
    if (typeof raw !== "string") {
      errors.push(tag("data-string", fieldError.invalid(path, raw, "ConfigMap data values must be strings")));
    } else if (key === "global") {
      errors.push(
        ...byRule(rule("global-values"), checkSection(raw, oldData?.[key], schemas.global, key, path, false)),
      );
    } else if (key.endsWith("Enabled") && key !== "Enabled") {
      if (raw !== "true" && raw !== "false")
        errors.push(tag("enabled-flag", fieldError.notSupported(path, raw, ["true", "false"])));
    } else if (key.endsWith("Maintenance") && key !== "Maintenance") {
      if (!maintenanceModes.includes(raw))
        errors.push(tag("maintenance-mode", fieldError.notSupported(path, raw, maintenanceModes)));
    } else {
      const keyProblem = valuesKeyProblem(key);
      if (keyProblem) {
        errors.push(tag("section-key", fieldError.invalid(path, key, `module section key ${keyProblem}`)));
        continue;
      }
      const module = schemas.modules.get(key);
      if (!module) {
        warnings.push(
          `data.${key}: no module "${moduleNameOf(key)}" in the modules dir; addon-operator ignores it`,
        );
      }
      const section = checkSection(raw, oldData?.[key], module?.schema ?? { state: "none" }, key, path, true);
      errors.push(...byRule(rule("module-values"), section));
    }
  }
  return { errors, warnings };
}

/** The rule ids of the ConfigMap's rules (`serve --rule-action` keys). */
export const configMapRules = [
  "data-string",
  "global-values",
  "enabled-flag",
  "maintenance-mode",
  "section-key",
  "module-values",
  "values-transition",
].map(rule);

function rule(name: string): string {
  return `addon-operator-configmap.${name}`;
}

function tag(name: string, error: FieldError): FieldError {
  return { ...error, rule: rule(name) };
}

type Parsed = { values: unknown } | { problem: string };

function parseSection(raw: string, isModule: boolean, key: string): Parsed {
  let values: unknown;
  try {
    values = load(raw);
  } catch (error) {
    return {
      problem: `is not valid YAML: ${(error as { reason?: string }).reason ?? (error as Error).message}`,
    };
  }
  if (values === null || values === undefined) return { values: {} };
  if (isMap(values) || (isModule && Array.isArray(values))) return { values };
  if (!isModule) return { problem: "must be a YAML map of global values" };
  const hint =
    values === false || values === "false"
      ? `; disabling a module with "false" is no longer supported: set ${key}Enabled: "false" instead`
      : "";
  return { problem: `must be a YAML map or list of module values${hint}` };
}

function checkSection(
  raw: string,
  oldRaw: unknown,
  schema: SectionSchema,
  key: string,
  path: FieldPath,
  isModule: boolean,
): FieldError[] {
  const parsed = parseSection(raw, isModule, key);
  if ("problem" in parsed) return [fieldError.invalid(path, raw, parsed.problem)];
  if (schema.state === "none") return [];
  if (schema.state === "broken") {
    return [fieldError.forbidden(path, `the schema cannot be checked against: ${schema.problem}`)];
  }
  const oldParsed = typeof oldRaw === "string" ? parseSection(oldRaw, isModule, key) : undefined;
  const oldValues = oldParsed && "values" in oldParsed ? oldParsed.values : undefined;
  return checkValues(parsed.values, oldValues, schema.schema, key).map((violation) =>
    toFieldError(violation, path),
  );
}

function fieldPathOf(base: FieldPath, segments: PathSegment[]): FieldPath {
  return segments.reduce<FieldPath>(
    (path, segment) => (typeof segment === "number" ? path.index(segment) : path.child(segment)),
    base,
  );
}

function toFieldError(violation: Violation, base: FieldPath): FieldError {
  const path = fieldPathOf(base, violation.path);
  if (violation.kind === "required") return fieldError.required(path, violation.message);
  if (violation.kind === "forbidden") return fieldError.forbidden(path, violation.message);
  return fieldError.invalid(path, violation.value, violation.message);
}
