import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goTimeZones } from "../../../src/go/time/time-zones.js";
import { cronDifferential, generateCron } from "../../support/differential/cron.js";
import { describeDisagreements, Random } from "../../support/differential/random.js";
import { useGoOracle, withoutGo } from "../../support/go-oracle.js";
import { accepted, refused } from "./cases.js";

/** src/go/robfig-cron against robfig/cron v3.0.1's parser with the operator's options, run by Go. */
describe("robfig/cron: src/go/robfig-cron against Go", { skip: withoutGo }, () => {
  const oracle = useGoOracle();

  it("the case tables: robfig's answer is the recorded one, and the port's", async () => {
    const specs = [...accepted, ...refused.map(([spec]) => spec)];
    const run = await cronDifferential(oracle.current, specs);
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
    const answers = await oracle.current.askAll(
      "cron",
      specs.map((spec) => ({ spec })),
    );
    const recorded = [...accepted.map(() => ""), ...refused.map(([, error]) => error)];
    specs.forEach((spec, i) => {
      assert.equal((answers[i] as { error?: string }).error ?? "", recorded[i], spec);
    });
  });

  it("every time zone name the port knows loads in Go, and no other spelling of one does", async () => {
    const names = [...goTimeZones];
    const variants = names
      .flatMap((name) => [name.toLowerCase(), name.toUpperCase()])
      .filter((n) => !goTimeZones.has(n));
    const run = await cronDifferential(
      oracle.current,
      [...names, ...variants].map((name) => `TZ=${name} @daily`),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it("2,000 generated schedules (npm run fuzz:oracle runs more)", async () => {
    const random = new Random(33);
    const run = await cronDifferential(
      oracle.current,
      Array.from({ length: 2000 }, () => generateCron(random)),
    );
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });
});
