import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import jsonpatch from "fast-json-patch";
import { admissionCase, admissionCases } from "../support/admission-cases.js";
import { withoutCorpus } from "../support/corpus.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import type { helmModule } from "../support/modules.js";
import { admissionReview, clone } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const mutatePath = "/mutate-batch-forkspacer-com-v1-module";

/** Applies a mutation's patch with an independent JSON Patch implementation. */
function applyReturnedPatch(object: unknown, response: { patch?: string; patchType?: string }): unknown {
  assert.equal(response.patchType, "JSONPatch");
  const operations = JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8"));
  return jsonpatch.applyPatch(clone(object), operations, true, false).newDocument;
}

describe("webhook over HTTPS", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("serves health and readiness probes", async () => {
    assert.equal((await server.get("/healthz")).status, 200);
    assert.equal((await server.get("/readyz")).status, 200);
  });

  it("admits every Module example of the spec the operator can run, on both paths; denies the `sub` one", {
    skip: withoutCorpus,
  }, async () => {
    // One of the reference's examples calls `sub`, which the operator's templates do not have.
    const callsSub = (c: { review: { request?: { object?: unknown } } }) =>
      JSON.stringify(c.review.request?.object).includes("{{ sub ");
    const all = admissionCases().filter((c) => c.name.startsWith("spec example "));
    const [sub, ...others] = all.filter(callsSub);
    assert.deepEqual(others, []);
    const object = sub?.review.request?.object;
    const denied = (await server.post(validatePath, admissionReview({ operation: "CREATE", object }))).json;
    assert.equal(denied.response.allowed, false);
    assert.match(denied.response.status.message, /function "sub" not defined/);
    const examples = all.filter((c) => !callsSub(c));
    assert.ok(examples.length >= 8, `expected the spec's examples, found ${examples.length}`);
    for (const { name, review } of examples) {
      const example = review.request?.object;
      const mutated = await server.post(mutatePath, review);
      assert.equal(mutated.json.response.allowed, true, name);
      const object = mutated.json.response.patch
        ? applyReturnedPatch(example, mutated.json.response)
        : example;
      const reply = await server.post(validatePath, admissionReview({ operation: "CREATE", object }));
      assert.equal(reply.status, 200);
      assert.equal(
        reply.json.response.allowed,
        true,
        `${name}: ${JSON.stringify(reply.json.response.status)}`,
      );
    }
  });

  it("echoes the uid and answers as admission.k8s.io/v1 AdmissionReview", async () => {
    const { review } = admissionCase("valid helm module");
    const reply = await server.post(validatePath, review);
    assert.equal(reply.json.apiVersion, "admission.k8s.io/v1");
    assert.equal(reply.json.kind, "AdmissionReview");
    assert.equal(reply.json.response.uid, review.request?.uid);
  });

  it("denies with status 422 Invalid, every cause named, in the API server's wording", async () => {
    const { review } = admissionCase("helm and custom, bad release name, replicas over max");
    const reply = await server.post(validatePath, review);
    const { response } = reply.json;
    assert.equal(response.allowed, false);
    assert.equal(response.status.code, 422);
    assert.equal(response.status.reason, "Invalid");
    assert.deepEqual(response.status.details.causes.map((c: { field: string }) => c.field).sort(), [
      "spec.config.replicas",
      "spec.custom",
      "spec.helm.releaseName",
    ]);
    assert.match(response.status.message, /^Module\.batch\.forkspacer\.com "redis" is invalid: \[/);
    assert.match(
      response.status.message,
      /spec\.helm\.releaseName: Invalid value: "Foo": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character/,
    );
    assert.match(
      response.status.message,
      /spec\.config\.replicas: Invalid value: 7: must be less than or equal to 5/,
    );
  });

  it("injects a release name on CREATE; the patch applies and the result is admitted and stable", async () => {
    const { review } = admissionCase("no release name, namespace starting with a digit and too long");
    const module = review.request?.object;
    const reply = await server.post(mutatePath, review);
    const patched = applyReturnedPatch(module, reply.json.response) as ReturnType<typeof helmModule>;
    const releaseName = patched.spec.helm?.releaseName ?? "";
    assert.match(releaseName, /^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    assert.ok(releaseName.length <= 53, releaseName);
    const ops = JSON.parse(Buffer.from(reply.json.response.patch, "base64").toString());
    assert.deepEqual(
      ops.map((op: { op: string; path: string }) => [op.op, op.path]),
      [["add", "/spec/helm/releaseName"]],
    );
    const again = await server.post(mutatePath, admissionReview({ operation: "CREATE", object: patched }));
    assert.equal(again.json.response.allowed, true);
    assert.equal(again.json.response.patch, undefined, "reinvocation must not change anything");
    const validated = await server.post(
      validatePath,
      admissionReview({ operation: "CREATE", object: patched }),
    );
    assert.equal(validated.json.response.allowed, true);
  });

  it("restores the old release name on an UPDATE that drops it", async () => {
    const { review } = admissionCase("update that drops the release name");
    const reply = await server.post(mutatePath, review);
    const patched = applyReturnedPatch(review.request?.object, reply.json.response) as ReturnType<
      typeof helmModule
    >;
    assert.equal(patched.spec.helm?.releaseName, "redis-main");
  });

  it("denies a changed release name on UPDATE", async () => {
    const reply = await server.post(
      validatePath,
      admissionCase("update that changes the release name").review,
    );
    assert.equal(reply.json.response.allowed, false);
    assert.match(
      reply.json.response.status.message,
      /spec\.helm\.releaseName: Invalid value: "redis-other": field is immutable/,
    );
  });

  it("allows DELETE and CONNECT without looking, and gives dryRun the same verdict", async () => {
    for (const name of ["delete", "connect"]) {
      const reply = await server.post(validatePath, admissionCase(name).review);
      assert.equal(reply.json.response.allowed, true);
      assert.equal(reply.json.response.patch, undefined);
    }
    const wet = await server.post(validatePath, admissionCase("bad release name").review);
    const dry = await server.post(validatePath, admissionCase("bad release name, dry run").review);
    assert.equal(dry.json.response.allowed, false);
    assert.deepEqual(dry.json.response.status, wet.json.response.status);
  });
});
