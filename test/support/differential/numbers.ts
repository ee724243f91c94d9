import { readJson } from "../../../src/base/exact-json.js";
import { beyondGoInt } from "../../../src/resources/module/config-schema-rules.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * JSON numbers as the Forkspacer operator decodes them (test/oracles/numbers.go) against what the
 * project makes of the same JSON: the float64 Go reads (JavaScript's double must be the same), Go's
 * int(v) of it where the operator truncates a config value (Math.trunc, within int64), and whether a
 * config item's int field can hold it (the number read exactly by readJson, config-schema-rules'
 * beyondGoInt). Texts are as the API server
 * writes numbers: int64 in decimal, others as Go's shortest float.
 */
export function generateNumber(random: Random): string {
  const kind = random.int(0, 5);
  if (kind === 0) return String(random.int(-1000, 1000));
  if (kind === 1) {
    const base = random.pick([2n ** 53n, 2n ** 63n, 2n ** 64n, 10n ** 19n, 2n ** 62n]);
    const value = (random.chance(0.5) ? -1n : 1n) * (base + BigInt(random.int(-3000, 3000)));
    return value.toString();
  }
  if (kind === 2) return `${random.int(-99, 99)}.${random.int(0, 999)}`;
  if (kind === 3) return `${random.int(1, 9)}e${random.int(-30, 30)}`;
  if (kind === 4)
    return random.pick([
      "0",
      "-0",
      "0.5",
      "-0.5",
      "1.5",
      "2.5",
      "-2.5",
      "9007199254740993",
      "4.9e-324",
      "1.7976931348623157e308",
    ]);
  return `${random.int(-9, 9)}${random.join([..."0123456789"], 1, 22)}`.replace(/^(-?)0+(?=\d)/, "$1");
}

export async function numberDifferential(
  oracle: GoOracle,
  texts: readonly string[],
): Promise<DifferentialRun> {
  const answers = await oracle.askAll(
    "jsonNumber",
    texts.map((text) => ({ text })),
  );
  const run: DifferentialRun = { family: "JSON numbers", cases: texts.length, disagreements: [] };
  texts.forEach((text, i) => {
    const go = answers[i] as (typeof answers)[number];
    if ("panic" in go || "timeout" in go || go.float === undefined) {
      run.disagreements.push({ input: text, go, ts: "a number" });
      return;
    }
    // Read as the review is read (readJson): an int64 beyond 2^53-1 exactly, as a bigint.
    const read = readJson(text) as number | bigint;
    const value = Number(read);
    const problems: string[] = [];
    if (!Object.is(Number(go.float), value)) problems.push(`float64 ${go.float}, JavaScript ${value}`);
    if (Math.abs(value) < 2 ** 63 && BigInt(go.truncated ?? "") !== BigInt(Math.trunc(value)))
      problems.push(`int(v) ${go.truncated}, Math.trunc ${Math.trunc(value)}`);
    // An int field holds exactly the int64 literals, which are read as int64s (numbers or bigints).
    const beyond = typeof read === "number" && Number.isInteger(read) && beyondGoInt(read);
    if (beyond && go.intError === undefined)
      problems.push(`the port refuses ${text} for an int field, Go decodes it`);
    if (/^-?\d+$/.test(text) && !beyond && go.intError !== undefined)
      problems.push(`Go refuses ${text} for an int field (${go.intError}), the port admits it`);
    if (problems.length > 0) run.disagreements.push({ input: text, go, ts: problems });
  });
  return run;
}
