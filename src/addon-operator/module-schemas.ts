import { extendSchema, helmSchema } from "./extend.js";
import { readSchema } from "./module-files.js";
import { closeSchema, isMap, type Schema } from "./schema.js";

type SchemaFile = "config-values.yaml" | "values.yaml";

/**
 * A module's (or the global hooks dir's) schemas as addon-operator prepares them (PrepareSchemas in
 * pkg/values/validation/schemas.go): `config` closed; `values` extended from the closed config schema
 * when `x-extend.schema` is any string, then closed; `helm` that with `x-required-for-helm` joined to
 * `required`. `problems` says why a file cannot be used (addon-operator then cannot load the module).
 */
export interface ModuleSchemas {
  config?: Schema;
  values?: Schema;
  helm?: Schema;
  problems: { file: SchemaFile; problem: string; line?: number }[];
  /** What x-extend.schema names when it is a string other than config-values.yaml (extended all the same). */
  extendNames?: string;
}

export function loadModuleSchemas(dir: string): ModuleSchemas {
  const result: ModuleSchemas = { problems: [] };
  const raw: Partial<Record<SchemaFile, Schema>> = {};
  for (const file of ["config-values.yaml", "values.yaml"] as const) {
    const read = readSchema(dir, file);
    if (read.state === "invalid") {
      result.problems.push({ file, problem: read.problem, ...(read.line ? { line: read.line } : {}) });
    }
    if (read.state === "ok") raw[file] = read.content;
  }
  const config = raw["config-values.yaml"];
  if (config) result.config = closeSchema(config);
  let values = raw["values.yaml"];
  if (values) {
    const extend = values["x-extend"];
    const named = isMap(extend) ? extend.schema : undefined;
    if (typeof named === "string" && result.config) {
      values = extendSchema(values, result.config);
      if (named !== "config-values.yaml") result.extendNames = named;
    }
    result.values = closeSchema(values);
    result.helm = helmSchema(result.values);
  }
  return result;
}
