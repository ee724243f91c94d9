import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { int64Value } from "../../../src/base/exact-json.js";
import { describeDisagreements } from "../../support/differential/random.js";
import { templateDifferential } from "../../support/differential/template.js";
import { useGoOracle, withoutGo } from "../../support/go-oracle.js";

/** Templates that print, compare and test a config int: each with every edge value below. */
const templates = [
  "{{.config.n}}",
  '{{printf "%d|%v|%x|%X|%5d" .config.n .config.n .config.n .config.n .config.n}}',
  "{{.config}}",
  "{{eq .config.n .config.m}} {{lt .config.n .config.m}} {{le .config.m .config.n}} {{ne .config.n 0}}",
  "{{if .config.n}}set{{else}}zero{{end}}",
  "{{print .config.n .config.m}}",
  "{{index .list 0}}",
  '{{len (printf "%d" .config.n)}}',
];

const edges = [
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n) - 1n,
  2n ** 63n - 1n,
  2n ** 63n - 2n,
  -(2n ** 63n),
  -(2n ** 63n) + 1n,
];

/**
 * An int64 as the operator's template data holds it (a config integer's default, decoded exactly):
 * printed, compared and tested by src/go/template as Go 1.24.9's text/template does them.
 */
describe("text/template over int64s beyond 2^53: src/go/template against Go", { skip: withoutGo }, () => {
  const oracle = useGoOracle();

  it("every edge value printed, compared and tested", async (t) => {
    const inputs = edges.flatMap((n, i) =>
      templates.map((text) => {
        const m = edges[(i + 1) % edges.length] as bigint;
        const data = { config: { n: int64Value(n), m: int64Value(m) }, list: [int64Value(n)] };
        return { name: `${text} with ${n}`, text, data };
      }),
    );
    const run = await templateDifferential(oracle.current, inputs);
    t.diagnostic(`${run.cases} templates executed; ${run.unsupported} not modelled`);
    assert.equal(run.unsupported, 0);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
