import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type LiveServer, startLiveServer } from "../support/live-server.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const example = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../examples/${file}`, import.meta.url), "utf8"));

/** The quick start's Module examples, posted as the README says, give what the README shows. */
describe("the README's Module examples, through the live server", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("admits examples/create-helm-module.json, and the mutating webhook adds the release name", async () => {
    const review = example("create-helm-module.json");
    const validated = await server.post("/validate-batch-forkspacer-com-v1-module", review);
    assert.equal(validated.json.response.allowed, true, JSON.stringify(validated.json.response.status));
    const mutated = await server.post("/mutate-batch-forkspacer-com-v1-module", review);
    const patch = JSON.parse(Buffer.from(mutated.json.response.patch, "base64").toString("utf8"));
    assert.deepEqual(
      patch.map((op: { op: string; path: string }) => `${op.op} ${op.path}`),
      ["add /spec/helm/releaseName"],
    );
  });

  it("denies examples/create-invalid-module.json with the message the README shows", async () => {
    const reply = await server.post(
      "/validate-batch-forkspacer-com-v1-module",
      example("create-invalid-module.json"),
    );
    const message: string = reply.json.response.status.message;
    assert.ok(readme.includes(JSON.stringify(message)), `the README shows ${message}`);
  });
});
