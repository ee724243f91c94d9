import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { batchedJsonLogger } from "../../src/server/log.js";

describe("batchedJsonLogger", () => {
  it("writes the lines logged in one turn of the event loop in one write, in order", async () => {
    const writes: string[] = [];
    const log = batchedJsonLogger((text) => writes.push(text));
    log({ msg: "a", n: 1 });
    log({ msg: "b", n: 2 });
    assert.deepEqual(writes, [], "nothing is written while the request is being answered");
    await new Promise((resolve) => setImmediate(resolve));
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
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(writes.length, 2);
  });

  it("writes what is pending when the process exits", async () => {
    const script = `
      import { jsonLogger } from "./src/server/log.ts";
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
