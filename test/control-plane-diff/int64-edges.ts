import fc from "fast-check";

/**
 * Manifests holding numbers at int64's edges, as YAML text (the literal written as it is, where a
 * JavaScript number could not hold it): ±2^53±1, ±2^63 and its neighbours, 2^64, floats with integral
 * values, exponents, -0, and random int64s near the edges (deterministic for a seed). Each sits in a
 * Module's config item (an integer's default, min and max, around a value) and in spec.config, where
 * the API server, serve, the operator's rules and validate must all read it as Go does.
 */
export interface EdgeCase {
  name: string;
  text: string;
}

const fixed = [
  "9007199254740991",
  "9007199254740992",
  "9007199254740993",
  "-9007199254740993",
  "9223372036854775807",
  "9223372036854775806",
  "-9223372036854775808",
  "9223372036854775808",
  "-9223372036854775809",
  "18446744073709551615",
  "18446744073709551616",
  "1e3",
  "1.0",
  "9007199254740993.0",
  "9.2e18",
  "-9.2e18",
  "1e21",
  "-0",
  "2.5",
];

/** Literals: the fixed edges, then `random` int64s within 2^10 of an edge. */
export function edgeLiterals(random: number, seed: number): string[] {
  const edges = [2n ** 53n, 2n ** 63n - 1n, -(2n ** 63n), -(2n ** 53n)];
  const near = fc
    .tuple(fc.constantFrom(...edges), fc.bigInt({ min: -1024n, max: 1024n }))
    .map(([edge, delta]) => {
      const n = edge + delta;
      return String(n < -(2n ** 63n) || n > 2n ** 63n - 1n ? edge - delta : n);
    });
  return [...fixed, ...fc.sample(near, { numRuns: random, seed })];
}

const module = (name: string, config: string, values: string) =>
  [
    "apiVersion: batch.forkspacer.com/v1",
    "kind: Module",
    `metadata: {name: ${name}, namespace: default}`,
    "config:",
    config,
    "spec:",
    "  workspace: {name: dev-environment}",
    "  helm:",
    "    chart: {repo: {url: https://charts.example.com, chart: c, version: 1.0.0}}",
    values,
  ].join("\n");

/** Every literal in each position: an integer's default and bounds (around a value), and spec.config. */
export function edgeCases(literals: readonly string[]): EdgeCase[] {
  return literals.flatMap((literal, i) => [
    {
      name: `integer.default/min/max ${literal}, value 9223372036854775807`,
      text: module(
        `schema-${i}`,
        `  - {name: Big, alias: big, integer: {default: ${literal}, min: ${literal}, max: ${literal}}}`,
        "  config: {big: 9223372036854775807}",
      ),
    },
    {
      name: `spec.config value ${literal}`,
      text: module(
        `value-${i}`,
        "  - {name: Big, alias: big, integer: {min: -9223372036854775808, max: 9223372036854775807}}",
        `  config: {big: ${literal}, other: ${literal}}`,
      ),
    },
  ]);
}
