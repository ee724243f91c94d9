import { join } from "node:path";
import type { Finding } from "../cli/findings.js";
import { checkValues } from "./check-values.js";
import { extendSchema, helmSchema } from "./extend.js";
import { listModuleDirectories, type ModuleDirectory, readSchema, readYamlMap } from "./module-files.js";
import { moduleNameProblem, valuesKeyOf } from "./module-names.js";
import { isMap, type Schema } from "./schema.js";

/**
 * Everything addon-operator would refuse, silently ignore or misread in a modules directory: names,
 * duplicates, hidden directories, values.yaml, the openapi schemas (x-extend resolved) and the static
 * values against the values schema, with `x-required-for-helm` reported as warnings (a hook may still
 * provide those values before Helm runs).
 */
export function lintModulesDir(modulesDir: string): Finding[] {
  const findings: Finding[] = [];
  const seen = new Map<string, string>();
  for (const module of listModuleDirectories(modulesDir)) {
    const error = (rule: string, message: string, file = module.path, line?: number): Finding => ({
      severity: "error",
      file,
      rule,
      message,
      object: `module ${module.name}`,
      ...(line ? { line } : {}),
    });
    if (module.directory.startsWith(".")) {
      findings.push({
        severity: "error",
        file: module.path,
        rule: "HiddenDirectory",
        message: `hidden directory ${JSON.stringify(module.directory)} in the modules dir: move or remove it`,
      });
      continue;
    }
    const nameProblem = moduleNameProblem(module.name);
    if (nameProblem) {
      findings.push(error("ModuleName", `module name ${JSON.stringify(module.name)} ${nameProblem}`));
      continue;
    }
    const earlier = seen.get(module.name);
    if (earlier) {
      findings.push(
        error(
          "DuplicateModule",
          `module name ${JSON.stringify(module.name)} is also the name of ${earlier}; addon-operator silently keeps only ${module.directory}`,
        ),
      );
    }
    seen.set(module.name, module.directory);
    findings.push(...lintModule(module, error));
  }
  return findings;
}

type MakeFinding = (rule: string, message: string, file?: string, line?: number) => Finding;

function lintModule(module: ModuleDirectory, error: MakeFinding): Finding[] {
  const findings: Finding[] = [];
  const key = valuesKeyOf(module.name);
  const valuesFile = join(module.path, "values.yaml");
  const staticValues = readStaticValues(valuesFile, key, error, findings);
  const schemas: Partial<Record<"config-values.yaml" | "values.yaml", Schema>> = {};
  for (const file of ["config-values.yaml", "values.yaml"] as const) {
    const read = readSchema(module.path, file);
    const path = join(module.path, "openapi", file);
    if (read.state === "invalid")
      findings.push(error("SchemaFile", `openapi/${file} ${read.problem}`, path, read.line));
    if (read.state === "ok") schemas[file] = read.content;
  }
  let valuesSchema = schemas["values.yaml"];
  if (valuesSchema && valuesSchema["x-extend"] !== undefined) {
    const extend = valuesSchema["x-extend"];
    if (!isMap(extend) || extend.schema !== "config-values.yaml") {
      const path = join(module.path, "openapi", "values.yaml");
      findings.push(error("XExtend", "x-extend must be {schema: config-values.yaml}", path));
    }
    valuesSchema = extendSchema(valuesSchema, schemas["config-values.yaml"] ?? {});
  }
  if (valuesSchema && staticValues !== undefined) {
    const violations = checkValues(staticValues, undefined, valuesSchema, key);
    for (const violation of violations) findings.push(error("ValuesSchema", violation.message, valuesFile));
    const reported = new Set(violations.map((violation) => violation.message));
    for (const violation of checkValues(staticValues, undefined, helmSchema(valuesSchema), key)) {
      if (reported.has(violation.message)) continue;
      findings.push({
        ...error(
          "RequiredForHelm",
          `${violation.message} (x-required-for-helm): a hook must set it before Helm runs`,
          valuesFile,
        ),
        severity: "warning",
      });
    }
  }
  return findings;
}

/** The module's values from its values.yaml: one key, the module's values key, holding a map. */
function readStaticValues(file: string, key: string, error: MakeFinding, findings: Finding[]): unknown {
  const read = readYamlMap(file);
  if (read.state === "absent") return undefined;
  if (read.state === "invalid") {
    findings.push(error("ValuesFile", `values.yaml ${read.problem}`, file, read.line));
    return undefined;
  }
  for (const other of Object.keys(read.content).filter((name) => name !== key)) {
    findings.push(
      error("ValuesFile", `values.yaml may hold only the module's values key "${key}", not "${other}"`, file),
    );
  }
  if (!(key in read.content)) return undefined;
  const values = read.content[key];
  if (!isMap(values)) {
    findings.push(error("ValuesFile", `values.yaml: ${key} must be a map of values`, file));
    return undefined;
  }
  return values;
}
