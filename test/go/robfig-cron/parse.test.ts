import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cronScheduleError } from "../../../src/go/robfig-cron/parse.js";
import { accepted, refused } from "./cases.js";

describe("robfig/cron schedules as the Forkspacer operator parses them", () => {
  for (const spec of accepted)
    it(`accepts ${JSON.stringify(spec)}`, () => assert.equal(cronScheduleError(spec), undefined));
  for (const [spec, error] of refused)
    it(`refuses ${JSON.stringify(spec)}`, () => assert.equal(cronScheduleError(spec), error));
});
