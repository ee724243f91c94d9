import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ReviewPool, smallSemiSpaceMb } from "../../src/isolation/review-pool.js";
import type { BlockingWorkerData } from "../support/blocking-review-worker.js";
import { startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";

/**
 * A review whose worker is ended before it has read the request (a cold or starved worker, or a parse
 * longer than the deadline) must still be answered as an AdmissionReview for its uid, never with a
 * bare HTTP 500 (with failurePolicy Fail, a failed write whatever the object).
 */
describe("a review its worker ended before reading it (issue 41)", { timeout: 300_000 }, () => {
  it("is answered through the live HTTPS server for its uid, read from the head of its body", async () => {
    // A deadline of 10 ms of CPU and a body of 300,000 empty objects (900 KB: parsed whole before its
    // uid is noted, as any body under 1 MiB) whose parse takes longer: the worker is ended in the parse.
    const server = await startLiveServer(undefined, { pool: { deadlineMs: 10 } });
    try {
      const module = helmModule();
      const marker = "__EMPTY_OBJECTS__";
      if (module.spec.helm) module.spec.helm.values = [{ raw: { x: marker as never } }];
      const review = admissionReview({ operation: "CREATE", object: module });
      const uid = review.request?.uid;
      const body = JSON.stringify(review).replace(JSON.stringify(marker), `[${"{},".repeat(300_000 - 1)}{}]`);
      assert.ok(body.length < 1024 * 1024, "under the size whose envelope the worker reads first");
      const reply = await server.post(validatePath, body);
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.equal(reply.json.kind, "AdmissionReview");
      assert.equal(reply.json.response.uid, uid);
      assert.equal(reply.json.response.allowed, false);
      assert.match(reply.json.response.status.message, /work budget \(10 ms of CPU per review\)/);
      // The worker's replacement answers the next review (within 10 ms or not: for its uid either way).
      const next = admissionReview({ operation: "CREATE", object: helmModule() });
      const clean = await server.post(validatePath, next);
      assert.equal(clean.json?.response?.uid, next.request?.uid, clean.text.slice(0, 300));
    } finally {
      await server.close();
    }
  });

  it("is judged again by another worker when its worker never read it (once)", async () => {
    // The first review any worker starts blocks its thread without CPU, past the wall limit
    // (3 x 700 ms); the pool ends that worker and hands the review to the one on standby.
    const release = new SharedArrayBuffer(4);
    const judged = new SharedArrayBuffer(4);
    const lines: Record<string, unknown>[] = [];
    const pool = await ReviewPool.start({
      entry: new URL("../support/blocking-review-worker.ts", import.meta.url),
      workerData: { release, judged } satisfies BlockingWorkerData,
      size: 1,
      heapMb: 64,
      semiSpaceMb: smallSemiSpaceMb,
      deadlineMs: 700,
      log: (fields) => lines.push(fields),
    });
    try {
      const answer = await pool.review(
        "/review",
        new TextEncoder().encode(JSON.stringify({ name: "first", block: "first" })),
      );
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.body).name, "first");
      assert.equal(Atomics.load(new Int32Array(judged), 0), 2, "judged twice: once by each worker");
      assert.ok(lines.some((line) => /judged again/.test(String(line.msg))));
    } finally {
      Atomics.store(new Int32Array(release), 0, 1);
      Atomics.notify(new Int32Array(release), 0);
      await pool.close();
    }
  });
});
