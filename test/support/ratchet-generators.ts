import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { KindDependencies } from "../../src/resources/index.js";

export type Kube = Record<string, any>;

/**
 * One way to break an object: `rules` are the rule ids it exists to exercise (checked by the ratchet
 * property test: alone, it makes each of them fail), `owns` the parts of the object it writes (two
 * violations that own the same part never meet in one case: their values would overwrite each other).
 * `updateOnly`: a change that only an update-only rule refuses, so it is never a legacy problem of a
 * stored object.
 */
export interface Violation {
  rules: string[];
  owns: string[];
  apply(object: Kube): void;
  updateOnly?: boolean;
  /** Parts it also takes when it is new: a channel renamed in the update is another channel. */
  alsoOwnsWhenNew?: string[];
}

/** A valid object of one kind and the violations the property test combines on it. */
export interface KindCase {
  name: string;
  /** Which of the kinds the registration builds (`ResourceKind.kind`); needed only when it builds several. */
  kind?: string;
  base(): Kube;
  violations: Violation[];
  /** The warning an admitted update carries while old problems remain, beside one per problem. */
  whileInvalid?: RegExp;
}

/**
 * What every registered kind provides for ratcheting's property test (docs/architecture.md: "for every
 * kind"), exported as `ratchetGenerators` from `test/resources/<name>/ratchet-generators.ts`: the
 * dependencies its registration's `create` is given, and its cases.
 */
export interface RatchetGenerators {
  dependencies: KindDependencies;
  cases: KindCase[];
}

export const v = (
  rules: string | string[],
  owns: string | string[],
  apply: (o: Kube) => void,
): Violation => ({
  rules: [rules].flat(),
  owns: [owns].flat(),
  apply,
});

export const updateOnly = (rule: string, owns: string | string[], apply: (o: Kube) => void): Violation => ({
  ...v(rule, owns, apply),
  updateOnly: true,
});

/** Where a kind's generators live: beside its tests, found by its registration's name. */
export const ratchetGeneratorsFile = (name: string) =>
  fileURLToPath(new URL(`../resources/${name}/ratchet-generators.ts`, import.meta.url));

/** A kind's generators, or undefined when its folder of tests has none. */
export async function loadRatchetGenerators(name: string): Promise<RatchetGenerators | undefined> {
  const file = ratchetGeneratorsFile(name);
  if (!existsSync(file)) return undefined;
  const module = (await import(pathToFileURL(file).href)) as { ratchetGenerators?: RatchetGenerators };
  return module.ratchetGenerators;
}

/** What the check needs of a registration: its name and its declared rules. */
export interface RatchetObligations {
  name: string;
  rules: readonly { id: string; severity: string }[];
}

/**
 * What the registrations lack of their ratchet obligations, one line each: a kind without generators
 * or without a case, an error rule of a kind that no violation exercises, a violation naming a rule
 * its kind does not declare. Empty when every kind provides them.
 */
export async function ratchetGaps(
  registrations: readonly RatchetObligations[],
  load: (name: string) => Promise<RatchetGenerators | undefined> = loadRatchetGenerators,
): Promise<string[]> {
  const gaps: string[] = [];
  for (const registration of registrations) {
    const { name, rules } = registration;
    const generators = await load(name);
    if (!generators) {
      gaps.push(`${name}: no ratchetGenerators exported by test/resources/${name}/ratchet-generators.ts`);
      continue;
    }
    if (generators.cases.length === 0) gaps.push(`${name}: ratchetGenerators has no case`);
    const exercised = new Set(generators.cases.flatMap((c) => c.violations.flatMap((x) => x.rules)));
    for (const rule of rules) {
      if (rule.severity === "error" && !exercised.has(rule.id))
        gaps.push(`${rule.id}: an error rule of ${name} without a violation generator`);
    }
    const declared = new Set(rules.map((rule) => rule.id));
    for (const rule of exercised) {
      if (!declared.has(rule))
        gaps.push(`${rule}: a violation of ${name} names a rule ${name} does not declare`);
    }
  }
  return gaps;
}
