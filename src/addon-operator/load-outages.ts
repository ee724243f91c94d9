import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { parseYaml } from "../go/yaml/dialects.js";
import { isMap } from "./schema.js";

/**
 * The `$ref`s of a schema file that name another file by a relative path. addon-operator expands refs
 * with spec.ExpandSchema(schema, schema, nil): no base path, so go-openapi resolves a relative file
 * against the process's working directory, not against the schema's folder, and the module fails to
 * load wherever the operator does not happen to run from that folder. Local refs (`#/...`), absolute
 * paths and URLs are not relative files. Enum values, defaults and examples are data, not schemas.
 */
export function relativeFileRefs(document: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isMap(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        const location = value.split("#")[0] ?? "";
        if (location !== "" && !isAbsolute(location) && !/^[a-z][a-z0-9+.-]*:/i.test(location))
          found.push(value);
      } else if (key !== "enum" && key !== "default" && key !== "example") visit(value);
    }
  };
  visit(document);
  return found;
}

/**
 * `<name>Enabled` keys of the modules dir's values.yaml whose value is not a boolean as gopkg.in/yaml.v3
 * reads it (`"false"`, `yes`, `1`, null): the static extender asserts `v.(bool)` and addon-operator
 * panics at start (pkg/module_manager/scheduler/extenders/static/static.go). Unreadable text is
 * reported elsewhere.
 */
export function nonBooleanEnabledFlags(valuesFile: string): { key: string; value: unknown }[] {
  let text: string;
  try {
    text = readFileSync(valuesFile, "utf8");
  } catch {
    return [];
  }
  const parsed = parseYaml(text, "yaml.v3");
  if (!("value" in parsed) || !isMap(parsed.value)) return [];
  return Object.entries(parsed.value)
    .filter(([key, value]) => key.endsWith("Enabled") && typeof value !== "boolean")
    .map(([key, value]) => ({ key, value }));
}
