import { load as loadYaml } from "js-yaml";
import { writeJson } from "../../../src/base/exact-json.js";
import { parseYaml, type YamlDialect } from "../../../src/go/yaml/dialects.js";
import { readDocument } from "../../../src/manifests/yaml-readings.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * YAML scalars where Go's readers and JavaScript's disagree most: numbers in every base and with
 * underscores, exponents and signs, YAML 1.1 booleans, nulls, timestamps, infinities, sexagesimals,
 * merge keys, binary; placed as a map value, a list item, a flow item and a map key.
 */
const numberParts = [
  "0",
  "1",
  "7",
  "8",
  "9",
  "_",
  ".",
  "e",
  "E",
  "+",
  "-",
  "x",
  "X",
  "o",
  "O",
  "b",
  "B",
  "a",
  "f",
  "F",
];
const words = [
  "yes",
  "Yes",
  "YES",
  "no",
  "No",
  "NO",
  "on",
  "On",
  "ON",
  "off",
  "Off",
  "OFF",
  "y",
  "Y",
  "n",
  "N",
  "true",
  "True",
  "TRUE",
  "tRUE",
  "false",
  "False",
  "null",
  "Null",
  "NULL",
  "~",
  "",
  "=",
  "<<",
  ".inf",
  "-.Inf",
  "+.INF",
  ".nan",
  ".NaN",
  ".NAN",
  "inf",
  "nan",
  "2025-01-01",
  "2025-1-1",
  "2001-12-14t21:59:43.10-05:00",
  "2001-12-14 21:59:43.10 -5",
  "2025-01-01T00:00:00Z",
  "2002-12-14",
  "12:30",
  "1:20",
  "190:20:30",
  "1:20.5",
  "-1:20",
  "0x",
  "0o",
  "0b",
  "0x1F",
  "0o17",
  "0b101",
  "0755",
  "08",
  "09.5",
  "1_000",
  "1__0",
  "_1",
  "1_",
  ".5",
  "._5",
  "+.5",
  "1.",
  "1e3",
  "1E-2",
  "1e400",
  "-0",
  "+0",
  "0.0",
  "-0.0",
  "9223372036854775807",
  "9223372036854775808",
  "18446744073709551615",
  "18446744073709551616",
  "-9223372036854775808",
  "-9223372036854775809",
  "123456789012345678901234567890",
  "0x7FFFFFFFFFFFFFFF",
  "0xFFFFFFFFFFFFFFFF",
  "0x10000000000000000",
  "1.7976931348623157e308",
  "4.9e-324",
  "2e-400",
  "'0755'",
  '"yes"',
  "!!str 0755",
  "!!int 0755",
  "!!float 1",
  "!!binary aGVsbG8=",
  "!!bool yes",
  "!!timestamp 2025-01-01",
];

export function generateScalar(random: Random): string {
  if (random.chance(0.5)) return random.pick(words);
  const sign = random.pick(["", "", "", "-", "+"]);
  const prefix = random.pick(["", "", "", "0", "0x", "0o", "0b", "0X", "."]);
  return `${sign}${prefix}${random.join(numberParts, 1, 7)}`;
}

/** A document holding one generated scalar, in one of the places a scalar goes. */
export function generateYamlDocument(random: Random): string {
  const s = generateScalar(random);
  return random.pick([
    `a: ${s}`,
    `- ${s}`,
    `[${s}]`,
    `{${s}: 1}`,
    `${s}: 1`,
    `${s}`,
    `a: ${s}\nb: ${generateScalar(random)}`,
    `a:\n  - ${s}\n  - ${generateScalar(random)}`,
    // List items of maps: the `-` is an indicator, the key after it may still read differently.
    `- ${s}: 1\n- a: ${generateScalar(random)}`,
    `- name: x\n  ${s}: 1`,
  ]);
}

/**
 * A value as JSON data with sorted keys (Go writes a map's keys sorted). The oracle's answers are read
 * with JSON.parse, so an int64 beyond 2^53-1 the port reads exactly (a bigint) is compared as the
 * float64 its digits parse to, as the oracle's is: test/control-plane-diff's int64 edges prove the
 * exact value against the real API server.
 */
const normal = (v: unknown): unknown => (v === undefined ? undefined : sorted(JSON.parse(writeJson(v))));
const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v !== null && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
        )
      : v;

/**
 * Each dialect of src/go/yaml/dialects.ts against its Go library (sigs.k8s.io/yaml; yaml.v3 then
 * JSON), and the GitOps reading of src/manifests/yaml-readings.ts against kustomize's kyaml: the values, or
 * that both refuse the text (their messages differ: the port names path and rule in its own words).
 */
export async function yamlDifferential(oracle: GoOracle, texts: readonly string[]): Promise<DifferentialRun> {
  const run: DifferentialRun = { family: "YAML readings", cases: texts.length, disagreements: [] };
  const readers = [
    ["sigs", "sigs"],
    ["yaml.v3", "yaml.v3"],
  ] as const satisfies readonly (readonly [YamlDialect, "sigs" | "yaml.v3"])[];
  for (const [dialect, reader] of readers) {
    const answers = await oracle.askAll(
      "yaml",
      texts.map((text) => ({ text, reader })),
    );
    texts.forEach((text, i) => {
      const answer = answers[i] as (typeof answers)[number];
      if ("panic" in answer || "timeout" in answer) {
        run.disagreements.push({ input: { text, reader }, go: answer, ts: null });
        return;
      }
      const parsed = parseYaml(text, dialect);
      const ts = "value" in parsed ? { value: normal(parsed.value) } : { error: parsed.problem };
      const go = answer.error !== undefined ? { error: answer.error } : { value: answer.value ?? null };
      if ("error" in go && "error" in ts) return;
      if ("value" in go && "value" in ts && JSON.stringify(normal(go.value)) === JSON.stringify(ts.value))
        return;
      run.disagreements.push({ input: { text, reader }, go, ts });
    });
  }
  // What `validate --yaml kubectl|gitops` reads: the chosen reading where the port found something the
  // readings may differ on, js-yaml's value elsewhere.
  const manifestReaders = [
    ["kubectl", "sigs"],
    ["gitops", "kyaml"],
  ] as const;
  for (const [reader, library] of manifestReaders) {
    const answers = await oracle.askAll(
      "yaml",
      texts.map((text) => ({ text, reader: library })),
    );
    texts.forEach((text, i) => {
      const answer = answers[i] as (typeof answers)[number];
      // A blank document is no object: validate skips it.
      if ("panic" in answer || "timeout" in answer || answer.error !== undefined || text.trim() === "")
        return;
      let ts: unknown;
      try {
        const reading = readDocument(text, reader);
        if (reading.problem !== undefined) ts = { error: reading.problem };
        else ts = normal(reading.value !== undefined ? reading.value : loadYaml(text));
      } catch (error) {
        // validate refuses a repeated key (js-yaml's reading) on its own: not a reading of either tool.
        if (/duplicated mapping key/.test(String(error))) return;
        ts = { error: String(error) };
      }
      if (JSON.stringify(ts) === JSON.stringify(normal(answer.value))) return;
      run.disagreements.push({ input: { text, reader: `validate --yaml ${reader}` }, go: answer.value, ts });
    });
  }
  return run;
}
