import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReviewInProgress } from "../../src/admission/review-protocol.js";
import { ReviewNote } from "../../src/isolation/review-note.js";

const review = (uid: string, name = "redis"): ReviewInProgress => ({
  uid,
  kind: { group: "batch.forkspacer.com", version: "v1", kind: "Module" },
  name,
  log: { uid, kind: "Module", object: `default/${name}`, operation: "CREATE", dryRun: false, patched: false },
});

describe("ReviewNote: the review a worker is judging, in shared memory", () => {
  it("reads, through another view of the same memory, the note of the review asked for only", () => {
    const worker = new ReviewNote();
    const main = new ReviewNote(worker.memory);
    assert.equal(main.read(1), undefined);
    assert.ok(worker.write(1, review("u-1", "ünïcödé")));
    assert.deepEqual(main.read(1), review("u-1", "ünïcödé"));
    assert.ok(worker.write(2, review("u-2")));
    assert.equal(main.read(1), undefined, "a later review's note is not an earlier one's");
    assert.deepEqual(main.read(2), review("u-2"));
  });

  it("says when a note does not fit, and leaves none to be read", () => {
    const worker = new ReviewNote();
    const main = new ReviewNote(worker.memory);
    assert.equal(worker.write(3, review("u-3", "n".repeat(20_000))), false);
    assert.equal(main.read(3), undefined);
  });
});
