import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { retryTooManyRequests } from "../../src/kube/api-errors.js";

/** What client-node throws for a refused call: an ApiException with the status code and headers. */
const refused = (code: number, retryAfter?: string) =>
  Object.assign(new Error(`HTTP ${code}`), {
    code,
    headers: retryAfter ? { "retry-after": retryAfter } : {},
  });

describe("retryTooManyRequests (429, as client-go retries it)", () => {
  it("calls again after Retry-After until the call succeeds", async () => {
    let calls = 0;
    const answer = await retryTooManyRequests(async () => {
      calls++;
      if (calls < 3) throw refused(429, "0.01");
      return "done";
    });
    assert.equal(answer, "done");
    assert.equal(calls, 3);
  });

  it("gives up after the attempts, with the last error", async () => {
    let calls = 0;
    await assert.rejects(
      retryTooManyRequests(async () => {
        calls++;
        throw refused(429, "0.01");
      }, 2),
      /HTTP 429/,
    );
    assert.equal(calls, 2);
  });

  it("never retries another failure", async () => {
    let calls = 0;
    await assert.rejects(
      retryTooManyRequests(async () => {
        calls++;
        throw refused(409);
      }),
      /HTTP 409/,
    );
    assert.equal(calls, 1);
  });
});
