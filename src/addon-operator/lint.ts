import { join } from "node:path";
import type { Finding } from "../base/finding.js";
import { checkValues } from "./check-values.js";
import { deckhouseValidationProblems } from "./deckhouse-validations.js";
import { nonBooleanEnabledFlags, relativeFileRefs } from "./load-outages.js";
import { listModuleDirectories, type ModuleDirectory, readSchema, readYamlMap } from "./module-files.js";
import { moduleNameProblem, valuesKeyOf } from "./module-names.js";
import { loadModuleSchemas } from "./module-schemas.js";
import { isMap } from "./schema.js";
import { mergeValues } from "./values.js";

/**
 * Everything addon-operator would refuse, silently ignore or misread in a modules directory: names,
 * duplicates, hidden directories, values.yaml, the openapi schemas (x-extend resolved) and the static
 * values against the values schema, with `x-required-for-helm` reported as warnings (a hook may still
 * provide those values before Helm runs).
 */
export function lintModulesDir(modulesDir: string): Finding[] {
  const findings: Finding[] = [];
  const seen = new Map<string, string>();
  const listing = listModuleDirectories(modulesDir);
  for (const problem of listing.problems) {
    findings.push({ severity: "error", file: problem.path, rule: "ModulesDir", message: problem.message });
  }
  const commonFile = join(modulesDir, "values.yaml");
  const common = readYamlMap(commonFile);
  if (common.state === "invalid") {
    findings.push({
      severity: "error",
      file: commonFile,
      rule: "ValuesFile",
      message: `values.yaml ${common.problem}`,
      ...(common.line ? { line: common.line } : {}),
    });
  }
  for (const { key, value } of nonBooleanEnabledFlags(commonFile)) {
    findings.push({
      severity: "error",
      file: commonFile,
      rule: "EnabledFlag",
      message: `values.yaml: ${key} is ${JSON.stringify(value)}, not a boolean: addon-operator's static extender panics at start`,
    });
  }
  const commonValues = common.state === "ok" ? common.content : {};
  for (const module of listing.modules) {
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
    findings.push(...lintModule(module, commonValues[valuesKeyOf(module.name)], error));
  }
  return findings;
}

type MakeFinding = (rule: string, message: string, file?: string, line?: number) => Finding;

function lintModule(module: ModuleDirectory, commonValues: unknown, error: MakeFinding): Finding[] {
  const findings: Finding[] = [];
  const key = valuesKeyOf(module.name);
  const valuesFile = join(module.path, "values.yaml");
  const ownValues = readStaticValues(valuesFile, key, error, findings);
  const staticValues =
    ownValues === undefined && commonValues === undefined
      ? undefined
      : mergeValues(mergeValues({}, commonValues ?? {}), ownValues ?? {});
  const schemas = loadModuleSchemas(module.path);
  for (const { file, problem, line } of schemas.problems) {
    findings.push(
      error("SchemaFile", `openapi/${file} ${problem}`, join(module.path, "openapi", file), line),
    );
  }
  findings.push(...loadOutages(module.path, key, error));
  if (schemas.extendNames !== undefined) {
    findings.push({
      ...error(
        "XExtend",
        `x-extend.schema is ${JSON.stringify(schemas.extendNames)}, but addon-operator extends from config-values.yaml whatever it names`,
        join(module.path, "openapi", "values.yaml"),
      ),
      severity: "warning",
    });
  }
  const valuesSchema = schemas.values;
  if (valuesSchema && staticValues !== undefined) {
    const violations = checkValues(staticValues, valuesSchema, key);
    for (const violation of violations) findings.push(error("ValuesSchema", violation.message, valuesFile));
    const reported = new Set(violations.map((violation) => violation.message));
    for (const violation of checkValues(staticValues, schemas.helm ?? valuesSchema, key)) {
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

/**
 * What stops addon-operator loading the module although each file parses: a `$ref` to a relative file
 * (resolved against the operator's working directory), and `x-deckhouse-validations` that cannot run
 * (every value of the module is then refused).
 */
function loadOutages(modulePath: string, key: string, error: MakeFinding): Finding[] {
  const findings: Finding[] = [];
  for (const file of ["config-values.yaml", "values.yaml"] as const) {
    const path = join(modulePath, "openapi", file);
    const raw = readYamlMap(path);
    if (raw.state !== "ok") continue;
    for (const ref of relativeFileRefs(raw.content)) {
      findings.push(
        error(
          "SchemaRef",
          `openapi/${file}: $ref ${JSON.stringify(ref)} is a relative file: addon-operator resolves it against its working directory, not this folder, and fails to load the module; use an absolute path`,
          path,
        ),
      );
    }
    const expanded = readSchema(modulePath, file);
    if (expanded.state !== "ok") continue;
    for (const problem of deckhouseValidationProblems(expanded.content, key)) {
      findings.push(
        error(
          "DeckhouseValidations",
          `openapi/${file}: ${problem}: addon-operator refuses every value of the module`,
          path,
        ),
      );
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
  // Every key is merged into the module's values; the module reads only its own (and the static extender
  // its `<key>Enabled`): other keys are dead, a warning.
  for (const other of Object.keys(read.content).filter((name) => name !== key && name !== `${key}Enabled`)) {
    findings.push({
      ...error(
        "ValuesFile",
        `values.yaml key "${other}" is ignored: the module reads only "${key}" (and "${key}Enabled")`,
        file,
      ),
      severity: "warning",
    });
  }
  if (!Object.hasOwn(read.content, key)) return undefined;
  const values = read.content[key];
  if (!isMap(values)) {
    findings.push(error("ValuesFile", `values.yaml: ${key} must be a map of values`, file));
    return undefined;
  }
  return values;
}
