import { checkValues } from "../../addon-operator/check-values.js";
import { hasDeckhouseValidations } from "../../addon-operator/deckhouse-validations.js";
import { moduleNameOf, valuesKeyOf } from "../../addon-operator/module-names.js";
import { isMap, type Schema } from "../../addon-operator/schema.js";
import type { PathSegment, Violation } from "../../addon-operator/validate.js";
import { byRule, type FieldError, fieldError } from "../../admission/field-errors.js";
import type { Verdict } from "../../admission/resource-kind.js";
import { errorRules, type IdsOf, type Native, warningRules } from "../../admission/rule-catalogue.js";
import type { RuleWarning } from "../../admission/warning.js";
import { fitWarning } from "../../admission/warning.js";
import { emptyMap } from "../../base/empty-map.js";
import { FieldPath } from "../../base/field-path.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import { type ParseCharge, parseYaml, type YamlDialect } from "../../go/yaml/dialects.js";
import { LruCache } from "../../memo/lru-cache.js";
import type { KnownModule, LoadedSchemas, SectionSchema } from "./schema-store.js";

type Data = Record<string, unknown>;

const rule = <Name extends string>(name: Name) => `addon-operator-configmap.${name}` as const;

const configMap = "flant/addon-operator pkg/kube_config_manager/backend/configmap/configmap.go";
const validate = "flant/addon-operator pkg/module_manager/module_manager.go, validateNewKubeConfig";
const wholeConfigMap = "refuses the whole ConfigMap and keeps running on the last one it took";

/** Sections are YAML inside a string, checked against the modules' OpenAPI schemas: the webhook's alone. */
const yamlInAString: Native = {
  by: "webhook",
  why: "YAML inside a string, checked against the values schemas of the modules directory: beyond CEL",
};
/** A flag's value is checked only for a key that names a module (section-key otherwise). */
const moduleKey: Native = {
  by: "webhook",
  why: "reported only for a key addon-operator reads as a module name (section-key otherwise): a camelCase round trip beyond CEL",
};

/** The ConfigMap's rules (`serve --rule-action` keys), as addon-operator reads ConfigMap/addon-operator. */
export const configMapRules = [
  ...errorRules({
    [rule("data-string")]: {
      summary: "a data value that is not a string",
      realSystem: "the API server refuses it (ConfigMap data values are strings)",
      upstream: "kubernetes core/v1 ConfigMap",
      native: { by: "schema", why: "the API server's own ConfigMap type: data values are strings" },
    },
    [rule("global-values")]: {
      summary: "the global section not YAML, or not valid against the global values schema",
      realSystem: wholeConfigMap,
      upstream: validate,
      native: yamlInAString,
    },
    [rule("enabled-flag")]: {
      summary: "a <module>Enabled value other than true or false",
      realSystem: wholeConfigMap,
      upstream: configMap,
      native: moduleKey,
    },
    [rule("maintenance-mode")]: {
      summary: 'a <module>Maintenance value other than NoResourceReconciliation (or its lower case, or "")',
      realSystem: wholeConfigMap,
      upstream: configMap,
      native: moduleKey,
    },
    [rule("section-key")]: {
      summary: "a key that is not the camelCase values key of a module name (bad module name)",
      realSystem: wholeConfigMap,
      upstream: `${configMap}, getModulesNamesFromConfigData`,
      native: {
        by: "webhook",
        why: "addon-operator's module name from a key: a camelCase to kebab-case round trip beyond CEL",
      },
    },
    [rule("module-values")]: {
      summary: "an enabled module's section not YAML, or not valid against its values schema",
      realSystem: wholeConfigMap,
      upstream: validate,
      native: yamlInAString,
    },
    [rule("values-transition")]: {
      summary: "an x-deckhouse-validations rule that reads oldSelf refuses the change",
      realSystem: wholeConfigMap,
      upstream:
        "flant/addon-operator pkg/values/validation/cel/cel.go (x-deckhouse-validations: self, oldSelf)",
      transition: true,
      native: yamlInAString,
    },
  }),
  ...warningRules({
    [rule("unknown-module")]: {
      summary: "a section of no module in the modules dir",
      realSystem: "ignores it",
      upstream: `${configMap}, getModulesNamesFromConfigData`,
      native: {
        by: "webhook",
        why: "the module names of the modules directory, which only the webhook reads",
      },
    },
    [rule("disabled-module")]: {
      summary: "a disabled module's section that addon-operator would refuse once the module is enabled",
      realSystem:
        "does not check a disabled module's section; refuses the whole ConfigMap once it is enabled",
      upstream: validate,
      native: yamlInAString,
    },
  }),
];

// The kind's rule ids, so that its emit sites accept only these (src/admission/rule-catalogue.ts).
declare module "../../admission/rule-catalogue.js" {
  interface DeclaredRuleIds extends IdsOf<typeof configMapRules> {}
}

const maintenanceModes = ["NoResourceReconciliation", "noresourcereconciliation", ""];
const dataPath = FieldPath.root("data");

/**
 * The module name a key stands for, as getModulesNamesFromConfigData reads every key but `global`
 * (pkg/kube_config_manager/backend/configmap/configmap.go): `Enabled`, then `Maintenance` stripped, and the
 * rest must be the camelCase values key of its own kebab-case form, or addon-operator refuses the whole
 * ConfigMap ("bad module name").
 */
function keyError(key: string): FieldError | undefined {
  const stripped = key.replace(/Enabled$/, "").replace(/Maintenance$/, "");
  const name = moduleNameOf(stripped);
  if (valuesKeyOf(name) === stripped) return undefined;
  return fieldError.invalid(
    dataPath.child(key),
    key,
    `bad module name ${JSON.stringify(stripped)}: must be camelCased (${JSON.stringify(stripped)} → ${JSON.stringify(name)} → ${JSON.stringify(valuesKeyOf(name))}); addon-operator refuses the whole ConfigMap`,
  );
}

/**
 * addon-operator's verdict on the `data` of ConfigMap/addon-operator in one state: every key's name,
 * `<key>Enabled` and `<key>Maintenance` values, `global` and the module sections, each parsed as
 * addon-operator parses it and checked only where `validateNewKubeConfig` checks it (module_manager.go):
 * `global` whenever present; a module section only for a known module that is enabled (or being enabled)
 * and not empty (`{}` and lists are stored unchecked). A disabled module's problems are warnings: they
 * stop addon-operator the day the module is enabled.
 */
export function validateConfigMapData(data: Data, schemas: LoadedSchemas, budget: WorkBudget): Verdict {
  const errors: FieldError[] = [];
  const warnings: RuleWarning[] = [];
  const cache = cacheOf(schemas);
  // Keys, not entries: a map of 100,000 keys paid 50 ms for Object.entries' pairs before the budget
  // stopped the loop at the first few hundred sections.
  for (const key of Object.keys(data)) {
    const raw = data[key];
    budget.charge(key.length + (typeof raw === "string" ? raw.length : 1), "reading data", dataPath);
    if (typeof raw !== "string") {
      errors.push(
        ...byRule(rule("data-string"), [
          fieldError.invalid(dataPath.child(key), raw, "ConfigMap data values must be strings"),
        ]),
      );
      continue;
    }
    const enabled = enabledFlag(data[`${key}Enabled`]);
    // What an entry's verdict depends on: its key and text, the schemas (one cache per load) and, for a
    // module section, its `<key>Enabled` in the same ConfigMap; nothing else of the ConfigMap.
    const cacheKey = `S${enabled}${key.length}:${key}${raw}`;
    let verdict = cache.get(cacheKey);
    if (verdict === undefined) {
      verdict = judgeEntry(key, raw, enabled, schemas, parsingCharge(budget, key));
      cache.set(cacheKey, verdict, verdictBytes(verdict));
    }
    for (const error of verdict.errors) errors.push(error);
    for (const warning of verdict.warnings) warnings.push(warning);
  }
  return { errors, warnings };
}

/** An entry's errors (tagged with their rules) and warnings; frozen, as the cache shares them. */
interface EntryVerdict {
  readonly errors: readonly FieldError[];
  readonly warnings: readonly RuleWarning[];
}

const noProblems: EntryVerdict = Object.freeze({ errors: Object.freeze([]), warnings: Object.freeze([]) });

function entryVerdict(errors: FieldError[], warnings: RuleWarning[] = []): EntryVerdict {
  if (errors.length === 0 && warnings.length === 0) return noProblems;
  for (const error of errors) Object.freeze(error);
  return Object.freeze({ errors: Object.freeze(errors), warnings: Object.freeze(warnings) });
}

/** What a verdict retains, in bytes, roughly: its JSON twice over (UTF-16), plus the objects' overhead. */
function verdictBytes(verdict: EntryVerdict): number {
  if (verdict === noProblems) return 64;
  return 2 * JSON.stringify(verdict).length + 256 * (verdict.errors.length + verdict.warnings.length);
}

/** `<key>Enabled` as isEnabled reads it: only "true" and "false" count. */
function enabledFlag(value: unknown): "true" | "false" | "" {
  return value === "true" || value === "false" ? value : "";
}

/**
 * Entry verdicts, one cache per load of the schemas: a reload makes a new LoadedSchemas, and its old
 * cache goes with the old schemas. Real traffic repeats entries: a ConfigMap update changes one key of
 * many and the rest are judged again; controllers and GitOps re-apply it unchanged; on UPDATE the old
 * ConfigMap is judged too (ratcheting), its entries mostly the new one's. Bounded by entries (a full
 * deckhouse ConfigMap has ~300 keys) and bytes (a ConfigMap's data is at most 1 MiB).
 */
const caches = new WeakMap<LoadedSchemas, LruCache<EntryVerdict>>();
function cacheOf(schemas: LoadedSchemas): LruCache<EntryVerdict> {
  let cache = caches.get(schemas);
  if (cache === undefined) {
    cache = new LruCache({ bytes: 16 * 1024 * 1024, entries: 2048 });
    caches.set(schemas, cache);
  }
  return cache;
}

/**
 * What parsing and checking a section not judged recently costs: the `yaml` package took 1.7-3 µs per
 * character, and a tiny section about 170 µs to judge in all (50,000 of them took 6.3 s), about 28,000
 * units. The per-character rate is kept below what the parser costs (about 280 units), so that a
 * replica just started, whose cache is empty, still takes a real ConfigMap of 100 KB of sections
 * whole rather than denying it (at the price of about 200 ms for it). Sections judged recently come
 * from the cache: only what changed is paid for.
 */
const sectionUnits = 20_000;
const yamlUnitsPerChar = 100;

/** Charges `budget` for parsing a section's text, once the parser's cheap checks have passed it. */
function parsingCharge(budget: WorkBudget, key: string): ParseCharge {
  return (chars) => {
    const path = dataPath.child(key);
    budget.charge(sectionUnits + chars * yamlUnitsPerChar, `parsing and checking ${path}`, path);
  };
}

/** One entry of `data`, a string: its key's name, then its value as that key reads it. */
function judgeEntry(
  key: string,
  raw: string,
  enabled: "true" | "false" | "",
  schemas: LoadedSchemas,
  charge: ParseCharge,
): EntryVerdict {
  const path = dataPath.child(key);
  if (key === "global") {
    const parsed = parseSection(raw, "global", charge);
    if ("problem" in parsed)
      return entryVerdict(byRule(rule("global-values"), [fieldError.invalid(path, raw, parsed.problem)]));
    return entryVerdict(checkSection(parsed.values, schemas.global, key, path));
  }
  const badKey = keyError(key);
  if (badKey) return entryVerdict(byRule(rule("section-key"), [badKey]));
  if (key.endsWith("Enabled")) {
    if (raw !== "true" && raw !== "false")
      return entryVerdict(
        byRule(rule("enabled-flag"), [fieldError.notSupported(path, raw, ["true", "false"])]),
      );
    return noProblems;
  }
  if (key.endsWith("Maintenance")) {
    if (!maintenanceModes.includes(raw))
      return entryVerdict(
        byRule(rule("maintenance-mode"), [fieldError.notSupported(path, raw, maintenanceModes)]),
      );
    return noProblems;
  }
  const parsed = parseSection(raw, "module", charge, key);
  if ("problem" in parsed)
    return entryVerdict(byRule(rule("module-values"), [fieldError.invalid(path, raw, parsed.problem)]));
  const module = schemas.modules.get(key);
  if (!module) {
    return entryVerdict(
      [],
      [
        {
          rule: rule("unknown-module"),
          field: path,
          message: fitWarning(
            `data.${key}: no module "${moduleNameOf(key)}" in the modules dir; addon-operator ignores it`,
          ),
        },
      ],
    );
  }
  if (!isMap(parsed.values) || Object.keys(parsed.values).length === 0) return noProblems;
  const found = checkSection(parsed.values, module.schema, key, path);
  if (isEnabled(module, enabled)) return entryVerdict(found);
  if (found.length === 0) return noProblems;
  return entryVerdict(
    [],
    [
      {
        rule: rule("disabled-module"),
        field: path,
        message: fitWarning(
          `data.${key}: module disabled, so not checked by addon-operator; it refuses this once enabled: ${found[0]?.detail ?? ""}`,
        ),
      },
    ],
  );
}

/**
 * The transition rules (`x-deckhouse-validations` that read `oldSelf`) of every section checked in both
 * the old and the new ConfigMap; `oldSelf` is the stored section without defaults.
 */
export function validateConfigMapTransition(
  oldData: Data,
  data: Data,
  schemas: LoadedSchemas,
  budget: WorkBudget,
): Verdict {
  const errors: FieldError[] = [];
  const cache = cacheOf(schemas);
  for (const key of Object.keys(data)) {
    const raw = data[key];
    budget.charge(key.length + 1, "reading data", dataPath);
    const oldRaw = oldData[key];
    if (typeof raw !== "string" || typeof oldRaw !== "string") continue;
    const source = key === "global" ? "global" : "module";
    const module = source === "module" ? schemas.modules.get(key) : undefined;
    const schema = source === "global" ? schemas.global : module?.schema;
    if (schema?.state !== "ok" || (module && !isEnabled(module, data[`${key}Enabled`]))) continue;
    // Without any x-deckhouse-validations there is no transition rule to run, nor a rule list to refuse.
    if (!hasDeckhouseValidations(schema.schema)) continue;
    // Depends on the key, both texts and the schema (the cache is per load); enabled is settled above.
    const cacheKey = `T${key.length}:${key}${raw.length}:${raw}${oldRaw}`;
    let verdict = cache.get(cacheKey);
    if (verdict === undefined) {
      const charge = parsingCharge(budget, key);
      verdict = entryVerdict(transitionErrors(key, raw, oldRaw, source, schema.schema, charge));
      cache.set(cacheKey, verdict, verdictBytes(verdict));
    }
    for (const error of verdict.errors) errors.push(error);
  }
  return { errors, warnings: [] };
}

function transitionErrors(
  key: string,
  raw: string,
  oldRaw: string,
  source: "global" | "module",
  schema: Schema,
  charge: ParseCharge,
): FieldError[] {
  const parsed = parseSection(raw, source, charge, key);
  const oldParsed = parseSection(oldRaw, source, charge, key);
  if ("problem" in parsed || "problem" in oldParsed || !isMap(parsed.values)) return [];
  if (source === "module" && Object.keys(parsed.values).length === 0) return [];
  const violations = checkValues(parsed.values, schema, key, {
    rules: "transition",
    oldValues: oldParsed.values,
  });
  return byRule(
    rule("values-transition"),
    violations.map((violation) => toFieldError(violation, dataPath.child(key))),
  );
}

/**
 * Whether addon-operator validates a known module's section: only when a flag enables the module,
 * `<key>Enabled: "true"` in this ConfigMap or, with no flag there, `true` in the static values.yaml.
 * A module with no flag anywhere starts disabled and its section is not validated: the webhook then
 * checks it and warns, as for a disabled one (enabled scripts may still enable it later).
 */
function isEnabled(module: KnownModule, enabled: unknown): boolean {
  if (enabled === "true") return true;
  if (enabled === "false") return false;
  return module.staticEnabled === true;
}

type Parsed = { values: unknown } | { problem: string };

/**
 * A section's text as addon-operator reads it: `global` with sigs.k8s.io/yaml into a map (empty text or
 * only comments: an empty map); a module section with yaml.v3 and a JSON round trip, which must give a
 * map or a list (empty text is refused: LoadFromValues wants a map or an array).
 */
function parseSection(raw: string, source: "global" | "module", charge: ParseCharge, key = "global"): Parsed {
  const dialect: YamlDialect = source === "global" ? "sigs" : "yaml.v3";
  const parsed = parseYaml(raw, dialect, charge);
  if ("problem" in parsed) {
    const line = parsed.line !== undefined ? ` (line ${parsed.line})` : "";
    return { problem: `addon-operator cannot read it as YAML${line}: ${parsed.problem}` };
  }
  const values = parsed.value;
  if (source === "global") {
    if (values === null || values === undefined) return { values: emptyMap() };
    return isMap(values) ? { values } : { problem: "global must be a YAML map of global values" };
  }
  if (isMap(values) || Array.isArray(values)) return { values };
  const hint =
    values === false || values === "false"
      ? `; disabling a module with "false" is no longer supported: set ${key}Enabled: "false" instead`
      : "";
  return { problem: `module config should be a YAML map or list${hint}` };
}

/** A section against its schema; errors tagged `global-values` or `module-values`. */
function checkSection(values: unknown, schema: SectionSchema, key: string, path: FieldPath): FieldError[] {
  const id = rule(key === "global" ? "global-values" : "module-values");
  if (schema.state === "none") return [];
  if (schema.state === "broken") {
    return byRule(id, [
      fieldError.forbidden(
        path,
        `cannot be checked: the module's schema is unusable, and addon-operator cannot load the module: ${schema.problem}`,
      ),
    ]);
  }
  return byRule(
    id,
    checkValues(values, schema.schema, key).map((violation) => toFieldError(violation, path)),
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
