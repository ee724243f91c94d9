import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { Module } from "../../../src/generated/module.js";
import { executeTemplate } from "../../../src/go/template/exec.js";
import { parseTemplate } from "../../../src/go/template/index.js";
import { kindOf, type OfflineKind, offlineKinds } from "../../../src/offline/kinds.js";
import { templateConfig } from "../../../src/resources/module/template-data.js";
import { pruneAndDefault } from "../../../src/validation/prune-default.js";
import { corpusFound, corpusPath } from "../corpus.js";
import type { GoOracle, ModuleAnswer } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * The template data's `.config` against the operator's (issue 43, templates over undeclared keys):
 * Modules whose spec.config holds declared and undeclared keys (scalars, nested maps, lists), whose
 * items have defaults or none, duplicate aliases included, each with templates that print the whole
 * `.config` with `%#v` (every key, every value's Go type: int, bool, string, []string, nil slices),
 * its keys and types by `range`, and reads of undeclared and nested keys. The oracle runs the
 * operator's CREATE path (test/oracles/forkspacer.go: GetValidatedConfig, RenderHelmSpec) and gives
 * the rendered spec; the port executes the same templates with templateConfig's data. They must
 * print the same text. Modules the operator refuses before rendering are counted apart.
 */
export const dataTemplates = {
  whole: '{{ printf "%#v" .config }}',
  keys: '{{ range $k, $v := .config }}{{ $k }}={{ printf "%T" $v }};{{ end }}',
  undeclared: "{{ .config.ns }}|{{ .config.extra }}|{{ .config.nested }}",
  nested: '{{ with .config.nested }}{{ .a }}{{ end }}|{{ index .config "ns" }}',
};

export interface TemplateDataRun extends DifferentialRun {
  /** Refused by the operator before rendering (CRD, webhook): nothing to compare. */
  refused: number;
}

const declared = ["port", "tier", "ns", "debug", "zones", "name"];
const undeclared = ["ns", "extra", "nested", "list", "n"];

function item(random: Random): Record<string, unknown> {
  const alias = random.pick(declared);
  const common = { editable: true, ...(random.chance(0.2) ? { required: false } : {}) };
  const type = random.int(0, 4);
  const entry: Record<string, unknown> = { name: alias, alias };
  if (type === 0)
    entry.integer = { ...common, ...(random.chance(0.6) ? { default: random.pick([0, 3, -5, 8080]) } : {}) };
  else if (type === 1)
    entry.boolean = { ...common, ...(random.chance(0.6) ? { default: random.chance(0.5) } : {}) };
  else if (type === 2)
    entry.string = {
      ...common,
      ...(random.chance(0.6) ? { default: random.pick(["web", "", "1.2", "a b"]) } : {}),
    };
  else if (type === 3)
    entry.option = {
      ...common,
      values: ["a", "b"],
      ...(random.chance(0.6) ? { default: random.pick(["a", "zz"]) } : {}),
    };
  else
    entry.multipleOptions = {
      ...common,
      values: ["a", "b"],
      ...(random.chance(0.6) ? { default: random.pick([[], ["a"], ["b", "a"]]) } : {}),
    };
  return entry;
}

/** A value a declared item accepts (so that the operator renders), by the item's type. */
function accepted(entry: Record<string, unknown>, random: Random): unknown {
  if (entry.integer) return random.pick([1, 2.7, -3, 65535]);
  if (entry.boolean) return random.chance(0.5);
  if (entry.string) return random.pick(["team-a", "", "3", "x y"]);
  if (entry.option) return random.pick(["a", "b"]);
  return undefined;
}

function undeclaredValue(random: Random): unknown {
  return random.pick(["team-b", 7, 2.5, true, null, { a: "deep", b: [1, 2] }, ["x", 1], {}, [], "{{ x }}"]);
}

export function generateTemplateDataModule(random: Random): unknown {
  const config = Array.from({ length: random.int(0, 4) }, () => item(random));
  const values: Record<string, unknown> = {};
  for (const entry of config) {
    if (!random.chance(0.6)) continue;
    const value = accepted(entry, random);
    if (value !== undefined) values[entry.alias as string] = value;
  }
  for (const key of undeclared)
    if (random.chance(0.4) && !config.some((e) => e.alias === key)) values[key] = undeclaredValue(random);
  const raw: Record<string, string> = {};
  for (const [name, text] of Object.entries(dataTemplates)) if (random.chance(0.8)) raw[name] = text;
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
    metadata: { name: "m", namespace: "default" },
    ...(config.length > 0 ? { config } : {}),
    spec: {
      workspace: { name: "dev" },
      helm: {
        releaseName: "rel",
        namespace: "default",
        chart: { repo: { url: "https://charts.example.com", chart: "app", version: "1.0.0" } },
        values: [{ raw }],
      },
      ...(Object.keys(values).length > 0 ? { config: values } : {}),
    },
  };
}

let moduleKind: OfflineKind | undefined;

/** What the port renders for each template of a Module's raw values, with templateConfig's data. */
function portRendering(module: unknown): Record<string, string> | undefined {
  moduleKind ??= kindOf(offlineKinds(), {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
  }) as OfflineKind;
  const stored = pruneAndDefault(moduleKind.crdSchema, module).object as Module;
  const data = templateConfig(stored);
  if (!data) return undefined;
  const raw = (stored.spec.helm?.values?.[0] as { raw?: Record<string, string> } | undefined)?.raw ?? {};
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(raw)) {
    const parsed = parseTemplate(text, { functions: ["randBase62"] });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const result = executeTemplate(
      text,
      parsed.template.trees,
      "",
      { config: data.config },
      {
        budget: new WorkBudget(),
        randBase62: (n) => "a".repeat(n),
      },
    );
    out[name] = result.ok ? result.output : `error: ${result.error}`;
  }
  return out;
}

export async function templateDataDifferential(
  oracle: GoOracle,
  modules: readonly unknown[],
): Promise<TemplateDataRun> {
  const crd = corpusFound
    ? { operatorCrd: corpusPath("forkspacer", "crds", "batch.forkspacer.com_modules.yaml") }
    : {};
  const answers = (await Promise.all(
    modules.map((module) => oracle.ask("module", { module, ...crd })),
  )) as ModuleAnswer[];
  const run: TemplateDataRun = {
    family: "template data",
    cases: modules.length,
    disagreements: [],
    refused: 0,
  };
  modules.forEach((module, i) => {
    const answer = answers[i] as ModuleAnswer;
    if (answer.rendered === undefined) {
      run.refused++;
      return;
    }
    const rendered = answer.rendered as { values?: { raw?: Record<string, string> }[] };
    const go = rendered.values?.[0]?.raw ?? {};
    const ts = portRendering(module);
    // Go's JSON lists a map's keys sorted: compare in that order.
    const sorted = (o: Record<string, string> | undefined) =>
      JSON.stringify(Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (sorted(go) !== sorted(ts)) run.disagreements.push({ input: module, go, ts });
  });
  return run;
}
