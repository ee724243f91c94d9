import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { batchedJsonLogger } from "../../src/base/log.js";

describe("batchedJsonLogger", () => {
  const batch = { delayMs: 5, maxBytes: 200 };
  const afterDelay = () => new Promise((resolve) => setTimeout(resolve, batch.delayMs * 4));

  it("writes the lines logged within the delay in one write, in order", async () => {
    const writes: string[] = [];
    const log = batchedJsonLogger((text) => writes.push(text), batch);
    log({ msg: "a", n: 1 });
    log({ msg: "b", n: 2 });
    assert.deepEqual(writes, [], "nothing is written while the request is being answered");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, [], "nor in the next turn of the event loop");
    await afterDelay();
    assert.equal(writes.length, 1);
    const lines = (writes[0] ?? "").split("\n");
    assert.equal(lines.pop(), "", "every line ends with a newline");
    assert.deepEqual(
      lines.map((line) => JSON.parse(line)),
      [
        { time: JSON.parse(lines[0] ?? "").time, msg: "a", n: 1 },
        { time: JSON.parse(lines[1] ?? "").time, msg: "b", n: 2 },
      ],
    );
    assert.match(JSON.parse(lines[0] ?? "").time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    log({ msg: "c" });
    await afterDelay();
    assert.equal(writes.length, 2);
  });

  it("writes at once when the lines waiting reach maxBytes", () => {
    const writes: string[] = [];
    const log = batchedJsonLogger((text) => writes.push(text), batch);
    log({ msg: "short" });
    assert.equal(writes.length, 0);
    log({ msg: "x".repeat(batch.maxBytes) });
    assert.equal(writes.length, 1);
    assert.deepEqual(
      (writes[0] ?? "")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).msg.length),
      [5, batch.maxBytes],
    );
  });

  it("writes a line without fields as the time alone, and a field named time after it", async () => {
    const writes: string[] = [];
    const log = batchedJsonLogger((text) => writes.push(text), batch);
    log({});
    log({ time: "mine" });
    await afterDelay();
    const [bare, own] = (writes[0] ?? "")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(Object.keys(bare), ["time"]);
    assert.equal(own.time, "mine", "the later key wins, as the spread of fields over time did");
  });

  it("writes what is pending when the process exits", async () => {
    const script = `
      import { jsonLogger } from "./src/base/log.ts";
      for (let i = 0; i < 3; i++) jsonLogger({ msg: "line", i });
      process.exit(0);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--import",
      "tsx",
      "--input-type=module",
      "--eval",
      script,
    ]);
    assert.deepEqual(
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).i),
      [0, 1, 2],
    );
  });
});
