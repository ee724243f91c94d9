import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReviewLogging } from "../../src/server/app.js";
import { startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";

/** The review log lines a server writes for one admitted and one denied Module, with `logReviews`. */
async function reviewLines(logReviews: ReviewLogging | undefined) {
  const lines: Record<string, unknown>[] = [];
  const server = await startLiveServer(undefined, {
    log: (fields) => lines.push(fields),
    ...(logReviews ? { logReviews } : {}),
  });
  try {
    const admitted = await server.post(
      validatePath,
      admissionReview({ operation: "CREATE", object: helmModule() }),
    );
    assert.equal(admitted.json.response.allowed, true);
    const bad = helmModule();
    bad.spec.helm = { ...bad.spec.helm, releaseName: "Bad_Name" } as typeof bad.spec.helm;
    const denied = await server.post(validatePath, admissionReview({ operation: "CREATE", object: bad }));
    assert.equal(denied.json.response.allowed, false);
  } finally {
    await server.close();
  }
  return lines.filter((line) => line.msg === "admission review").map((line) => line.allowed);
}

describe("the review log", () => {
  it("has a line for each denial by default, for every review with all, and none with none", async () => {
    assert.deepEqual(await reviewLines(undefined), [false]);
    assert.deepEqual(await reviewLines("denied"), [false]);
    assert.deepEqual(await reviewLines("all"), [true, false]);
    assert.deepEqual(await reviewLines("none"), []);
  });
});
