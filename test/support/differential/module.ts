import { judgeValidation } from "../../../src/admission/handler.js";
import type { RuleDeclaration } from "../../../src/admission/rule-catalogue.js";
import { admitOffline, type OfflineVerdict } from "../../../src/offline/admit.js";
import { kindOf, type OfflineKind, offlineKinds } from "../../../src/offline/kinds.js";
import { ruleCatalogue } from "../../../src/resources/index.js";
import { installInputRules } from "../../../src/resources/module/install-inputs.js";
import { templateRules } from "../../../src/resources/module/template-rules.js";
import { bigIntegerNotChecked } from "../../../src/resources/module/template-runner.js";
import { pruneAndDefault } from "../../../src/validation/prune-default.js";
import { corpusFound, corpusPath } from "../corpus.js";
import type { GoOracle, ModuleAnswer } from "../go-oracle.js";
import type { DifferentialRun, Disagreement, Random } from "./random.js";

/**
 * The Forkspacer operator (v0.1.24, as test/oracles/forkspacer.go runs its steps) against this
 * project's verdict on a Module (the cluster's verdict offline: CRD schema, CEL, webhook). Where the
 * operator fails on the object (decode, webhook, render, install inputs), the project must deny it;
 * where the operator runs it, the project may deny it only by a rule the catalogue declares stricter
 * (`stricter`, listed in docs/rules.md) — the test reads that list, it does not restate it.
 */
let kinds: OfflineKind[] | undefined;

const stricterDeclarations = (): RuleDeclaration[] =>
  ruleCatalogue()
    .flatMap(({ rules }) => rules)
    .filter((rule) => rule.stricter !== undefined);
const stricterRules = (): ReadonlySet<string> => new Set(stricterDeclarations().map((rule) => rule.id));

/** The rules a fork of an adopted release's Workspace fails on: it renders and installs spec.helm. */
const forkRules = new Set<string>([...templateRules, ...installInputRules].map((rule) => rule.id));

/** Fields where our CRD restates a stricter rule: its schema or CEL error there is that rule's. */
const restatedFields = (): string[] => stricterDeclarations().flatMap((rule) => rule.restatedAt ?? []);

export interface ModuleJudgement {
  /** `random`: with randBase62's strings, some runs fail and some do not. */
  go: ModuleAnswer | { panic: string } | { timeout: true } | { random: true };
  ours: OfflineVerdict;
  /** The webhook's rules alone on the stored object (even where our CRD's schema stops the API server). */
  webhook: { rule?: string; field: string }[];
}

/** Both verdicts on each Module: Go's on the object as the API server stores it (defaulted), and ours. */
export async function judgeModules(
  oracle: GoOracle,
  modules: readonly unknown[],
): Promise<ModuleJudgement[]> {
  kinds ??= offlineKinds();
  const moduleKind = kindOf(kinds, { apiVersion: "batch.forkspacer.com/v1", kind: "Module" }) as OfflineKind;
  const stored = modules.map((module) => pruneAndDefault(moduleKind.crdSchema, module).object);
  // Alongside the operator (its CRD decides first, with the API server's own code) when the corpus
  // holds its CRD; else on the object as our CRD stores it.
  const operatorCrd = corpusFound
    ? corpusPath("forkspacer", "crds", "batch.forkspacer.com_modules.yaml")
    : undefined;
  const sent = operatorCrd ? modules : stored;
  const answers = await Promise.all(sent.map((module) => askWithFills(oracle, module, operatorCrd)));
  const verdicts = await Promise.all(modules.map((module) => admitOffline(moduleKind, module)));
  const webhook = await Promise.all(stored.map((module) => webhookErrors(moduleKind, module)));
  return answers.map((go, i) => ({ go, ours: verdicts[i] as OfflineVerdict, webhook: webhook[i] ?? [] }));
}

/**
 * Go's answer for a Module. randBase62's string is random: a Module that calls it is judged with three
 * (all lower-case letters, all digits, all upper-case letters); it fails for certain only when all
 * three fail, runs for certain only when all three run, and is `random` otherwise.
 */
async function askWithFills(
  oracle: GoOracle,
  module: unknown,
  operatorCrd: string | undefined,
): Promise<ModuleJudgement["go"]> {
  const crd = operatorCrd ? { operatorCrd } : {};
  if (!JSON.stringify(module).includes("randBase62")) return oracle.ask("module", { module, ...crd });
  const answers = await Promise.all(
    ["a", "1", "A"].map((fill) => oracle.ask("module", { module, fill, ...crd })),
  );
  const unsettled = answers.find((a) => "panic" in a || "timeout" in a);
  if (unsettled) return unsettled;
  const settled = answers as ModuleAnswer[];
  const failing = settled.filter((a) => a.stage !== undefined).length;
  if (failing === 0 || failing === settled.length) return settled[0] as ModuleAnswer;
  return { random: true };
}

/** The validating webhook's errors on an object, as a CREATE review would give them. */
async function webhookErrors(
  kind: OfflineKind,
  object: unknown,
): Promise<{ rule?: string; field: string }[]> {
  const { group, version } = kind.kind;
  const verdict = await judgeValidation(kind.kind, {
    uid: "differential",
    kind: { group, version, kind: kind.kind.kind },
    resource: { group, version, resource: kind.source.crd.names.plural },
    name: "m",
    namespace: "default",
    operation: "CREATE",
    object,
    dryRun: true,
  });
  return (verdict.errors ?? []).map((e) => ({ rule: e.rule, field: e.field.toString() }));
}

/**
 * Where the two verdicts disagree: a failure the project admits, or a denial nothing explains. A
 * denial is explained by a rule the catalogue declares stricter; an error of the CRD's schema or CEL
 * rules by a stricter webhook rule on the same field (our CRD restates some of them, e.g. releaseName);
 * a template rule's denial of an adopted release's template by the failure its Workspace's forks meet.
 */
export function moduleDisagreement(
  input: unknown,
  { go, ours, webhook }: ModuleJudgement,
): Disagreement | undefined {
  if ("panic" in go) return { input, go, ts: summary(ours) };
  // Past the oracle's timeout the operator does not finish either (a range over a huge integer): a
  // failure, like any other step that fails.
  if ("timeout" in go) go = { stage: "render", error: "does not finish (the oracle's timeout)" };
  if (!("random" in go) && go.stage !== undefined) {
    // The one modelling limit, said in a warning: an integer beyond 2^53 is not held exactly here.
    // (Shown warnings are cut to a length: the start of the text is enough.)
    const limit = bigIntegerNotChecked.slice(0, 24);
    if (ours.allowed && ours.warnings.some((w) => w.message.includes(limit))) return undefined;
    return ours.allowed ? { input, go: { stage: go.stage, error: go.error }, ts: summary(ours) } : undefined;
  }
  const stricter = stricterRules();
  const stricterFields = [
    ...restatedFields(),
    ...webhook.filter((e) => e.rule !== undefined && stricter.has(e.rule)).map((e) => e.field),
  ];
  const forkFails = !("random" in go) && go.forkError !== undefined;
  const schemaError = ours.errors.some((e) => e.stage === "schema");
  const unexplained = ours.errors.filter((e) => {
    if (e.rule !== undefined && stricter.has(e.rule)) return false;
    // The API server's note that a blocking schema error kept it from running the CEL rules follows
    // that error, which is judged on its own.
    if (e.stage === "cel" && e.field.toString() === "<nil>" && schemaError) return false;
    if (e.rule !== undefined && forkRules.has(e.rule) && forkFails) return false;
    if (e.stage === "schema" || e.stage === "cel") {
      const field = e.field.toString();
      return !stricterFields.some(
        (f) => field === f || field.startsWith(`${f}.`) || f.startsWith(`${field}.`),
      );
    }
    return true;
  });
  // Depending on randBase62 the operator fails or not (`random`): the project may warn, not deny.
  const verdict = "random" in go ? "random" : "runs";
  return unexplained.length > 0
    ? { input, go: verdict, ts: summary({ ...ours, errors: unexplained }) }
    : undefined;
}

const summary = (verdict: OfflineVerdict) => ({
  allowed: verdict.allowed,
  errors: verdict.errors.map((e) => `${e.stage} ${e.rule ?? ""} ${e.message}`.slice(0, 300)),
  warnings: verdict.warnings.map((w) => w.message.slice(0, 200)),
});

export async function moduleDifferential(
  oracle: GoOracle,
  modules: readonly unknown[],
): Promise<DifferentialRun> {
  const judged = await judgeModules(oracle, modules);
  const run: DifferentialRun = { family: "Forkspacer Module", cases: modules.length, disagreements: [] };
  judged.forEach((j, i) => {
    const d = moduleDisagreement(modules[i], j);
    if (d) run.disagreements.push(d);
  });
  return run;
}

// ---- the generator ----------------------------------------------------------------------------------

const aliases = ["replicas", "version", "name", "enabled", "tags", "hosts", "port", "tier"];
const regexes = ["^[a-z]+$", "[0-9]", "(", "^v\\d+\\.\\d+$", ".*", "\\p{L}+", "a{2,}"];

function configItem(random: Random): Record<string, unknown> {
  const alias = random.pick(aliases);
  const common = () => ({
    ...(random.chance(0.8) ? { editable: random.chance(0.85) } : {}),
    ...(random.chance(0.5) ? { required: random.chance(0.2) } : {}),
  });
  const type = random.int(0, 5);
  // Not ±2^63: a double cannot tell it from int64's extremes (the port leaves it undecided).
  const bigInts = [0, 1, 3, -1, 2 ** 53 + 2, 2 ** 53 + 2, 1e19, 2 ** 64, -(2 ** 64), 1.5];
  const item: Record<string, unknown> = { name: `Item ${alias}`, alias };
  if (type === 0)
    item.integer = {
      ...common(),
      ...(random.chance(0.7) ? { default: random.pick(bigInts) } : {}),
      ...(random.chance(0.3) ? { min: random.pick(bigInts) } : {}),
      ...(random.chance(0.3) ? { max: random.pick([5, 10, 1e19, 0]) } : {}),
    };
  else if (type === 1)
    item.boolean = { ...common(), ...(random.chance(0.6) ? { default: random.chance(0.5) } : {}) };
  else if (type === 2)
    item.string = {
      ...common(),
      ...(random.chance(0.6)
        ? {
            default: random.pick([
              "web",
              "1.2",
              "",
              "true",
              "null",
              "[1]",
              "Prod",
              "git@github.com:org/repo.git",
            ]),
          }
        : {}),
      ...(random.chance(0.3) ? { regex: random.pick(regexes) } : {}),
    };
  else if (type === 3) {
    const values = random.pick([["a", "b"], ["1.0", "2"], ["small", "large"], ["null"]]);
    item.option = {
      ...common(),
      values,
      ...(random.chance(0.7) ? { default: random.pick([...values, "zzz"]) } : {}),
    };
  } else if (type === 4) {
    const values = random.pick([["a", "b", "c"], ["x"], ["web", "api"]]);
    item.multipleOptions = {
      ...common(),
      values,
      ...(random.chance(0.6) ? { default: random.pick([[], ["a"], values, ["zzz"]]) } : {}),
      ...(random.chance(0.2) ? { min: 1 } : {}),
    };
  } else if (random.chance(0.5)) {
    // Two types in one item, or none.
    item.integer = { default: 2 };
    item.string = { default: "x" };
  }
  return item;
}

function configValue(random: Random): unknown {
  return random.pick([
    3,
    2.7,
    -4,
    1e19,
    2 ** 53 + 2,
    "3",
    "web",
    "",
    true,
    false,
    null,
    ["a"],
    [],
    { x: 1 },
    "1.2",
    "Prod",
  ]);
}

/** Template snippets as users write them into chart fields: data reads, functions, control flow. */
function template(random: Random): string {
  const alias = random.pick(aliases);
  return random.pick([
    `{{ .config.${alias} }}`,
    `{{.config.${alias}}}`,
    `v{{ .config.${alias} }}`,
    `{{ .releaseName }}-{{ .config.${alias} }}`,
    `{{ .namespace }}`,
    `{{ .releaseName }}`,
    `{{ printf "%q" .config.${alias} }}`,
    `{{ printf "%.1f" 2.0 }}`,
    `{{ printf "%d" .config.${alias} }}`,
    `{{ len .config.${alias} }}`,
    `{{ range .config.${alias} }}{{ . }}{{ end }}`,
    `{{ index .config.${alias} 5 }}`,
    `{{ index .config.${alias} 0 }}`,
    `{{ if .config.${alias} }}yes{{ else }}no{{ end }}`,
    `{{ .config.${alias} | printf "%v" }}`,
    `{{ randBase62 8 }}`,
    `{{ randBase62 -1 }}`,
    `{{ sub 1 2 }}`,
    `{{ .missing }}`,
    `{{ define "t" }}{{ template "t" }}{{ end }}{{ template "t" }}`,
    `{{ .config.${alias}`,
    `{{ "null" }}`,
    `{{ "git@github.com:org/repo.git" }}`,
    `{{ with .config.${alias} }}{{ . }}{{ end }}`,
    `{{ .config.${alias}.x }}`,
    `{{ eq .config.${alias} 3 }}`,
    `{{ not .config.${alias} }}`,
    `{{ html .config.${alias} }}`,
  ]);
}

const maybeTemplate = (random: Random, literal: string) => (random.chance(0.35) ? template(random) : literal);

function helmSpec(random: Random): Record<string, unknown> {
  const helm: Record<string, unknown> = {};
  const source = random.int(0, 3);
  if (source === 0)
    helm.chart = {
      repo: {
        url: maybeTemplate(
          random,
          random.pick(["https://charts.bitnami.com/bitnami", "oci://registry.example.com/charts"]),
        ),
        chart: maybeTemplate(random, "redis"),
        ...(random.chance(0.6)
          ? { version: maybeTemplate(random, random.pick(["21.2.9", "1.2", "3"])) }
          : {}),
      },
    };
  else if (source === 1)
    helm.chart = {
      git: {
        repo: maybeTemplate(
          random,
          random.pick([
            "https://github.com/org/charts.git",
            "git@github.com:org/charts.git",
            "ssh://git@github.com/org/charts.git",
          ]),
        ),
        ...(random.chance(0.7)
          ? { revision: maybeTemplate(random, random.pick(["main", "v1.0.0", ""])) }
          : {}),
        ...(random.chance(0.5) ? { path: maybeTemplate(random, "charts/app") } : {}),
      },
    };
  else if (source === 2) helm.chart = { configMap: { name: maybeTemplate(random, "chart") } };
  else helm.chart = random.pick([{}, { repo: { url: "https://x", chart: "y" }, configMap: { name: "c" } }]);
  if (random.chance(0.7))
    helm.namespace = maybeTemplate(random, random.pick(["default", "apps", "Prod", "team-a"]));
  if (random.chance(0.7))
    helm.releaseName = random.pick([
      "web",
      "my-release",
      "Web",
      "a".repeat(60),
      "rel.v1",
      "web-{{ .config.name }}",
    ]);
  if (random.chance(0.1))
    helm.existingRelease = {
      name: "legacy",
      namespace: random.pick(["default", "Prod", "team-a", "{{ .namespace }}"]),
    };
  if (random.chance(0.6)) {
    helm.values = Array.from({ length: random.int(1, 2) }, () =>
      random.pick([
        {
          raw: { replicaCount: maybeTemplate(random, "1"), image: { tag: maybeTemplate(random, "latest") } },
        },
        { raw: { replicaCount: maybeTemplate(random, "1") } },
        { file: maybeTemplate(random, "values.yaml") },
      ]),
    );
  }
  if (random.chance(0.2)) helm.outputs = [{ name: "url", value: maybeTemplate(random, "http://x") }];
  return helm;
}

/**
 * A Module as users write one, near misses included. Only objects the operator's own CRD admits are
 * made (raw values are objects; names fit its patterns): what that CRD refuses is the API server's to
 * refuse, tested against the real one (test/control-plane), not here.
 */
export function generateModule(random: Random): unknown {
  const config = Array.from({ length: random.int(0, 4) }, () => configItem(random));
  const values: Record<string, unknown> = {};
  for (const alias of aliases) if (random.chance(0.25)) values[alias] = configValue(random);
  const spec: Record<string, unknown> = { workspace: { name: "dev" } };
  const which = random.next();
  if (which < 0.75) spec.helm = helmSpec(random);
  else if (which < 0.95)
    spec.custom = {
      image: maybeTemplate(random, "ghcr.io/org/runner:1.0"),
      ...(random.chance(0.3) ? { imagePullSecrets: [maybeTemplate(random, "pull")] } : {}),
    };
  else {
    spec.helm = helmSpec(random);
    spec.custom = { image: "x" };
  }
  if (Object.keys(values).length > 0 || random.chance(0.1)) spec.config = values;
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
    metadata: { name: "m", namespace: "default" },
    ...(config.length > 0 ? { config } : {}),
    spec,
  };
}
