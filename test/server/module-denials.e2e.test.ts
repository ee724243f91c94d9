import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { denialCases } from "../support/module-cases.js";
import { admissionReview } from "../support/reviews.js";

describe("Module denials over HTTPS: each rule, its field named in a cause", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  for (const denial of denialCases) {
    it(denial.name, async () => {
      const review = admissionReview({
        operation: denial.operation,
        object: denial.object,
        oldObject: denial.oldObject,
      });
      const reply = await server.post("/validate-batch-forkspacer-com-v1-module", review);
      const { response } = reply.json;
      assert.equal(response.allowed, false, JSON.stringify(response));
      assert.equal(response.status.code, 422);
      const fields = response.status.details.causes.map((cause: { field: string }) => cause.field);
      assert.deepEqual([...fields].sort(), [...denial.fields].sort());
      for (const field of denial.fields) assert.ok(response.status.message.includes(`${field}: `), field);
    });
  }
});
