import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { progressBar } from "../../src/cli/progress.js";

describe("progressBar", () => {
  it("redraws only when the percentage changes, and clears the line at the end", () => {
    const writes: string[] = [];
    const tick = progressBar(1000, (text) => writes.push(text), 10);
    for (let done = 1; done <= 1000; done++) tick(done);
    const draws = writes.filter((w) => w.startsWith("\rvalidating"));
    assert.equal(draws.length, 101, "0% to 100%");
    assert.equal(draws.at(-1), `\rvalidating [##########] 100%`);
    assert.match(writes.at(-1) ?? "", /^\r +\r$/);
  });
});
