import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkValues } from "../../../src/addon-operator/check-values.js";
import { moduleNameOfDirectory, valuesKeyOf } from "../../../src/addon-operator/module-names.js";
import { loadModuleSchemas } from "../../../src/addon-operator/module-schemas.js";
import { isMap } from "../../../src/addon-operator/schema.js";
import { parseYaml } from "../../../src/go/yaml/dialects.js";
import { corpusPath } from "../corpus.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * A module's config values as addon-operator judges them (test/oracles/addon-operator/addon.go: the
 * config-values schema loaded and closed, defaults under the values, x-deckhouse-validations, then
 * go-openapi's validator) against the project's checkValues: valid for both, or refused by both with
 * the same messages.
 */
export interface AddonValuesInput {
  /** The module's folder (openapi/config-values.yaml inside), or global-hooks. */
  dir: string;
  key: string;
  values: unknown;
}

interface ModuleOfCorpus {
  dir: string;
  key: string;
  schemaText: string;
  /** deckhouse's own positive and negative configValues cases. */
  cases: unknown[];
}

let corpusModules: ModuleOfCorpus[] | undefined;

/** deckhouse v1.43.1's modules (and global-hooks) that have a config-values schema, with their cases. */
export function deckhouseModules(): ModuleOfCorpus[] {
  if (corpusModules) return corpusModules;
  const root = corpusPath("addon-operator", "deckhouse-v1.43.1");
  const dirs = readdirSync(join(root, "modules")).map((entry) => ({
    dir: join(root, "modules", entry),
    key: valuesKeyOf(moduleNameOfDirectory(entry)),
  }));
  dirs.push({ dir: join(root, "global-hooks"), key: "global" });
  corpusModules = dirs
    .filter(({ dir }) => existsSync(join(dir, "openapi", "config-values.yaml")))
    .map(({ dir, key }) => {
      const casesFile = join(dir, "openapi", "openapi-case-tests.yaml");
      const cases: unknown[] = [];
      if (existsSync(casesFile)) {
        const parsed = parseYaml(readFileSync(casesFile, "utf8"), "sigs");
        if ("value" in parsed && isMap(parsed.value))
          for (const verdict of ["positive", "negative"])
            for (const values of ((parsed.value[verdict] as Record<string, unknown> | undefined)
              ?.configValues as unknown[] | undefined) ?? [])
              cases.push(values);
      }
      return {
        dir,
        key,
        schemaText: readFileSync(join(dir, "openapi", "config-values.yaml"), "utf8"),
        cases,
      };
    });
  return corpusModules;
}

const schemasOf = new Map<string, ReturnType<typeof loadModuleSchemas>>();

export async function addonValuesDifferential(
  oracle: GoOracle,
  inputs: readonly AddonValuesInput[],
): Promise<DifferentialRun> {
  const answers = await oracle.askAll(
    "addonValues",
    inputs.map(({ dir, key, values }) => {
      const file = join(dir, "openapi", "config-values.yaml");
      return { configSchema: readFileSync(file, "utf8"), key, values };
    }),
  );
  const run: DifferentialRun & { messagesDiffer?: number } = {
    family: "addon-operator values",
    cases: inputs.length,
    disagreements: [],
    messagesDiffer: 0,
  };
  inputs.forEach((input, i) => {
    const answer = answers[i] as (typeof answers)[number];
    if ("panic" in answer || "timeout" in answer || answer.loadError !== undefined) {
      run.disagreements.push({ input, go: answer, ts: null });
      return;
    }
    if (!schemasOf.has(input.dir)) schemasOf.set(input.dir, loadModuleSchemas(input.dir));
    const schema = schemasOf.get(input.dir)?.config;
    if (!schema) {
      run.disagreements.push({ input, go: answer, ts: "no schema" });
      return;
    }
    const ours = [...new Set(checkValues(input.values, schema, input.key).map((v) => v.message))].sort();
    const go = answer.celError !== undefined ? [answer.celError] : [...new Set(answer.errors ?? [])].sort();
    // The verdict decides: valid for both, or refused by both. Messages are compared too, and where
    // go-openapi's and the port's wording differ (go-openapi goes on past a type error and names a
    // oneOf's branches' errors) the difference is counted, not failed.
    if ((go.length === 0) !== (ours.length === 0)) run.disagreements.push({ input, go, ts: ours });
    else if (JSON.stringify(go) !== JSON.stringify(ours)) run.messagesDiffer = (run.messagesDiffer ?? 0) + 1;
  });
  return run;
}

// ---- the generator: deckhouse's own cases, changed the ways users get values wrong -----------------------

const oddValues = [
  null,
  "",
  "x",
  0,
  -1,
  1.5,
  2 ** 53 + 1,
  1e300,
  true,
  false,
  [],
  {},
  ["a"],
  { a: 1 },
  "10Gi",
  "1h",
  "0.0.0.0",
  "a@b.c",
];

function mutate(value: unknown, random: Random, depth = 0): unknown {
  if (depth > 3 || random.chance(0.15)) return random.pick(oddValues);
  if (Array.isArray(value)) {
    if (value.length === 0 || random.chance(0.2)) return [...value, random.pick(oddValues)];
    const at = random.int(0, value.length - 1);
    return value.map((v, i) => (i === at ? mutate(v, random, depth + 1) : v));
  }
  if (isMap(value) || (value !== null && typeof value === "object")) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 || random.chance(0.15))
      return { ...(value as object), [random.pick(["extra", "unknown"])]: random.pick(oddValues) };
    const [key, v] = random.pick(entries);
    if (random.chance(0.15)) {
      const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
      return rest;
    }
    return { ...(value as object), [key]: mutate(v, random, depth + 1) };
  }
  return random.pick(oddValues);
}

/** One of deckhouse's configValues cases, changed once or twice (or as it is). */
export function generateAddonValues(random: Random): AddonValuesInput {
  const modules = deckhouseModules().filter((m) => m.cases.length > 0);
  const module = random.pick(modules);
  let values = random.pick(module.cases);
  for (let n = random.int(0, 2); n > 0; n--) values = mutate(values, random);
  if (!isMap(values) && (values === null || typeof values !== "object" || Array.isArray(values)))
    values = { value: values };
  return { dir: module.dir, key: module.key, values };
}
