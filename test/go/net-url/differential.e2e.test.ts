import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeDisagreements, Random } from "../../support/differential/random.js";
import { generateUrl, urlDifferential } from "../../support/differential/url.js";
import { useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { urlCases } from "./cases.js";

/** src/go/net-url against Go's own url.Parse, on the case table and on generated URLs. */
describe("url.Parse: src/go/net-url against Go", { skip: withoutGo }, () => {
  const oracle = useGoOracle();

  it("the case table: Go's answer is the recorded one, and the port's", async () => {
    const run = await urlDifferential(
      oracle.current,
      urlCases.map(([url]) => url),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
    const answers = await oracle.current.askAll(
      "url",
      urlCases.map(([raw]) => ({ raw })),
    );
    urlCases.forEach(([url, recorded], i) => {
      assert.equal((answers[i] as { error?: string }).error ?? "", recorded, JSON.stringify(url));
    });
  });

  it("2,000 generated URLs (npm run fuzz:oracle runs more)", async () => {
    const random = new Random(33);
    const run = await urlDifferential(
      oracle.current,
      Array.from({ length: 2000 }, () => generateUrl(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
