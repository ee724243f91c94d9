import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goUrlParseError } from "../../../src/go/net-url/parse.js";
import { urlCases as table } from "./cases.js";

describe("Go's url.Parse, as the operator parses a git chart's repo", () => {
  for (const [url, message] of table) {
    it(JSON.stringify(url), () => {
      assert.equal(goUrlParseError(url) ?? "", message);
    });
  }
});
