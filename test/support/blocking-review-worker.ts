import { threadId } from "node:worker_threads";
import { runReviewWorker } from "../../src/isolation/review-worker.js";

/**
 * A review worker for the pool's own tests. A review's body is `{"name": ..., "block": true?}`; a
 * blocking review waits (without using CPU) until the test stores 1 in `release` (`"block": "first"`:
 * only when it is the first review any worker starts). Every review a worker starts adds one to
 * `judged`, so a test can tell a review judged twice. `"answerBytes": N` pads the answer to about N
 * bytes (an answer too large for a slot of the worker's answer mailbox). State `{"stall": true}` (the
 * pool's `broadcast`) holds the worker until `release` as it reads it, before it takes its next review:
 * a thread that is not scheduled for a while.
 */
export interface BlockingWorkerData {
  release: SharedArrayBuffer;
  judged: SharedArrayBuffer;
}

runReviewWorker((data) => {
  const { release, judged } = data as BlockingWorkerData;
  const released = new Int32Array(release);
  const count = new Int32Array(judged);
  return {
    paths: new Set(["/review"]),
    onState: (state) => {
      if ((state as { stall?: boolean }).stall) Atomics.wait(released, 0, 0);
    },
    judge: async (_path, body) => {
      const { name, block, answerBytes } = JSON.parse(Buffer.from(body).toString("utf8")) as {
        name: string;
        block?: boolean | "first";
        answerBytes?: number;
      };
      const before = Atomics.add(count, 0, 1);
      if (block === true || (block === "first" && before === 0)) Atomics.wait(released, 0, 0);
      const pad = answerBytes ? "x".repeat(answerBytes) : undefined;
      return {
        status: 200,
        body: JSON.stringify({ name, threadId, pad }),
        report: {
          kind: "Review",
          allowed: true,
          log: {
            uid: name,
            kind: "Review",
            object: name,
            operation: "CREATE",
            dryRun: false,
            patched: false,
          },
        },
      };
    },
  };
});
