import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { moduleNameOfDirectory, valuesKeyOf } from "../../src/addon-operator/module-names.js";
import { isMap } from "../../src/addon-operator/schema.js";
import { parseYaml } from "../../src/go/yaml/dialects.js";

export interface DeckhouseCase {
  file: string;
  dir: string;
  key: string;
  verdict: "positive" | "negative";
  kind: "configValues" | "values" | "helmValues";
  index: number;
  values: unknown;
}

/**
 * Every case of a deckhouse tree's openapi-case-tests.yaml files, as deckhouse's harness reads them: its
 * struct reads exactly these three keys under positive/negative.
 */
export function loadDeckhouseCases(modulesDir: string, globalHooksDir: string): DeckhouseCase[] {
  const dirs = readdirSync(modulesDir)
    .filter((entry) => existsSync(join(modulesDir, entry, "openapi", "openapi-case-tests.yaml")))
    .map((entry) => ({ dir: join(modulesDir, entry), key: valuesKeyOf(moduleNameOfDirectory(entry)) }));
  dirs.push({ dir: globalHooksDir, key: "global" });
  const cases: DeckhouseCase[] = [];
  for (const { dir, key } of dirs) {
    const file = join(dir, "openapi", "openapi-case-tests.yaml");
    const parsed = parseYaml(readFileSync(file, "utf8"), "sigs");
    assert.ok("value" in parsed && isMap(parsed.value), file);
    for (const verdict of ["positive", "negative"] as const) {
      const group = parsed.value[verdict];
      if (!isMap(group)) continue;
      for (const kind of ["configValues", "values", "helmValues"] as const) {
        const list = group[kind];
        if (!Array.isArray(list)) continue;
        for (const [index, values] of list.entries())
          cases.push({ file, dir, key, verdict, kind, index, values });
      }
    }
  }
  return cases;
}
