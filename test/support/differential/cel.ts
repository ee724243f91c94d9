import {
  DeckhouseValidationError,
  goIndexErrorsSkipped,
  runDeckhouseValidations,
} from "../../../src/addon-operator/deckhouse-validations.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * x-deckhouse-validations as addon-operator runs them (test/oracles/addon-operator/cel.go: cel-go v0.26
 * in the environment addon-operator builds, values through structpb) against the port
 * (src/addon-operator/deckhouse-validations.ts on @bufbuild/cel): the same rules fail, or both refuse
 * the values (a malformed rule, a compile or evaluation error).
 */
export interface CelInput {
  rules: { expression: string; message: string }[];
  self: unknown;
  oldSelf?: unknown;
}

const expressions = [
  "self.size() > 0",
  "self == 'x'",
  "self != ''",
  "duration(self) > duration('1h')",
  "duration(self) < duration('24h')",
  "self.matches('^[a-z]+$')",
  "self.startsWith('a')",
  "self.endsWith('h')",
  "self.all(x, x > 0)",
  "self.exists(x, x == 'a')",
  "has(self.a)",
  "!has(self.b) || self.b > 1",
  "self.a + 1 > 0",
  "self / 2 > 1",
  "int(self) > 1",
  "double(self) >= 1.5",
  "self in ['a', 'b']",
  "self > 0",
  "self == oldSelf",
  "oldSelf == null || self >= oldSelf",
  "size(self) <= 3",
  "self.a.b == 1",
  "self['a'] == 1",
  "slef > 0",
  "self >",
  "self",
  "1",
  "self.filter(x, x > 1).size() == 0",
  "self.map(x, x * 2).size() > 0",
  "string(self) == '1'",
  "timestamp(self) > timestamp('2020-01-01T00:00:00Z')",
  "self.lowerAscii() == self",
  "type(self) == string",
  "self.contains('a')",
  "self.split(',').size() > 1",
  "self == null",
  "self != null",
  "1 + 1.5 > 0",
  "self + 1.5 > 0",
  "1 == 1.0",
  "self < 1.5",
  "self.size() == 0 ? true : self[0] == 'a'",
  "[1, 'a'].size() == 2",
  "{'a': 1}.a == 1",
  "self.all(k, self[k] != null)",
  "self.exists_one(x, x == 1)",
  "int(self) == 1",
  "uint(self) > 0u",
  "double(self) == 1.0",
  "string(self) != ''",
  "self.matches('[')",
  "matches(self, '^a')",
  "duration(self).getHours() > 1",
  "timestamp(self).getFullYear() > 2000",
  "self.size() > 0 && self.all(x, x.size() > 0)",
  "!self",
  "self || true",
  "-self < 0",
  "self % 2 == 0",
  "self * 2.0 > 1.0",
  "dyn(self) == 1",
  "type(self) == list",
  "self.a.exists(x, x > 1)",
  "has(self.a) && self.a.size() > 0",
  "b'a' == bytes(self)",
  "self[0] == 1",
  "self['a'] > 0",
  "oldSelf.size() <= self.size()",
];
const values = [
  "",
  "x",
  "a",
  "1h",
  "30m",
  "abc",
  "1h30m",
  "2h",
  "-1h",
  "1d",
  "2021-01-01T00:00:00Z",
  "a,b",
  0,
  1,
  2,
  1.5,
  -1,
  3,
  1e300,
  true,
  false,
  null,
  [],
  [1, 2],
  ["a"],
  [0],
  {},
  { a: 1 },
  { a: 1, b: 2 },
  { a: { b: 1 } },
  { b: 0 },
];

export function generateCel(random: Random): CelInput {
  const rules = Array.from({ length: random.int(1, 3) }, (_, i) => ({
    expression: random.pick(expressions),
    message: `rule ${i} failed`,
  }));
  const self = random.pick(values);
  return random.chance(0.3) ? { rules, self, oldSelf: random.pick(values) } : { rules, self };
}

type Verdict = { error: true } | { failed: string[] };

function ours(input: CelInput): Verdict {
  const schema = { "x-deckhouse-validations": input.rules };
  try {
    const state = runDeckhouseValidations(input.self, input.oldSelf, schema, "root", { rules: "state" });
    const transition = runDeckhouseValidations(input.self, input.oldSelf, schema, "root", {
      rules: "transition",
    });
    const failed = [...state, ...transition].map((v) => v.message);
    // The port runs state rules before transition rules; cel.go runs them in the list's order.
    const order = new Map(input.rules.map((rule, i) => [rule.message, i]));
    return { failed: failed.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)) };
  } catch (error) {
    if (error instanceof DeckhouseValidationError) return { error: true };
    throw error;
  }
}

export async function celDifferential(
  oracle: GoOracle,
  inputs: readonly CelInput[],
): Promise<DifferentialRun> {
  const answers = await oracle.askAll(
    "cel",
    inputs.map((input) => input),
  );
  const run: DifferentialRun & { indexErrorsSkipped: number } = {
    family: "x-deckhouse-validations (CEL)",
    cases: inputs.length,
    disagreements: [],
    indexErrorsSkipped: 0,
  };
  inputs.forEach((input, i) => {
    const answer = answers[i] as (typeof answers)[number];
    const go: unknown =
      "panic" in answer || "timeout" in answer
        ? answer
        : answer.error !== undefined
          ? { error: true }
          : { failed: answer.failed ?? [] };
    const ts = ours(input);
    // The one documented limit: an index error cel-go refuses on, which the port skips like a missing key.
    const goError = "error" in answer ? (answer.error ?? "") : "";
    if (goIndexErrorsSkipped.test(goError) && !("error" in ts)) {
      run.indexErrorsSkipped++;
      return;
    }
    if (JSON.stringify(go) !== JSON.stringify(ts))
      run.disagreements.push({
        input,
        go: "error" in (answer as object) ? (answer as { error: string }) : go,
        ts,
      });
  });
  return run;
}
