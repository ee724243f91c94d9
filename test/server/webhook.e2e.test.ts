import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import jsonpatch from "fast-json-patch";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview, clone, specExamples } from "../support/reviews.js";

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

  it("admits every Module example of the spec, on both paths", async () => {
    const examples = specExamples("forkspacer-module-reference.md", "Module");
    assert.ok(examples.length >= 8, `expected the spec's examples, found ${examples.length}`);
    for (const example of examples) {
      const name = (example.metadata as { name: string }).name;
      const mutated = await server.post(
        mutatePath,
        admissionReview({ operation: "CREATE", object: example }),
      );
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
    const review = admissionReview({ operation: "CREATE", object: helmModule() });
    const reply = await server.post(validatePath, review);
    assert.equal(reply.json.apiVersion, "admission.k8s.io/v1");
    assert.equal(reply.json.kind, "AdmissionReview");
    assert.equal(reply.json.response.uid, review.request?.uid);
  });

  it("denies with status 422 Invalid, every cause named, in the API server's wording", async () => {
    const module = helmModule();
    module.spec.custom = { image: "x" };
    if (module.spec.helm) module.spec.helm.releaseName = "Foo";
    module.spec.config = { ...module.spec.config, replicas: 7 };
    const reply = await server.post(validatePath, admissionReview({ operation: "CREATE", object: module }));
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
    const module = helmModule();
    if (module.spec.helm) delete module.spec.helm.releaseName;
    module.metadata = {
      name: "r",
      namespace: "0123456789-0123456789-0123456789-0123456789-0123456789-012345678",
    };
    const reply = await server.post(mutatePath, admissionReview({ operation: "CREATE", object: module }));
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
    const oldObject = helmModule();
    const object = helmModule();
    if (object.spec.helm) delete object.spec.helm.releaseName;
    const reply = await server.post(mutatePath, admissionReview({ operation: "UPDATE", object, oldObject }));
    const patched = applyReturnedPatch(object, reply.json.response) as ReturnType<typeof helmModule>;
    assert.equal(patched.spec.helm?.releaseName, "redis-main");
  });

  it("denies a changed release name on UPDATE", async () => {
    const oldObject = helmModule();
    const object = helmModule();
    if (object.spec.helm) object.spec.helm.releaseName = "redis-other";
    const reply = await server.post(
      validatePath,
      admissionReview({ operation: "UPDATE", object, oldObject }),
    );
    assert.equal(reply.json.response.allowed, false);
    assert.match(
      reply.json.response.status.message,
      /spec\.helm\.releaseName: Invalid value: "redis-other": field is immutable/,
    );
  });

  it("allows DELETE and CONNECT without looking, and gives dryRun the same verdict", async () => {
    for (const operation of ["DELETE", "CONNECT"] as const) {
      const reply = await server.post(validatePath, admissionReview({ operation, oldObject: helmModule() }));
      assert.equal(reply.json.response.allowed, true);
      assert.equal(reply.json.response.patch, undefined);
    }
    const bad = helmModule();
    if (bad.spec.helm) bad.spec.helm.releaseName = "Bad";
    const wet = await server.post(validatePath, admissionReview({ operation: "CREATE", object: bad }));
    const dry = await server.post(
      validatePath,
      admissionReview({ operation: "CREATE", object: bad, dryRun: true }),
    );
    assert.equal(dry.json.response.allowed, false);
    assert.deepEqual(dry.json.response.status, wet.json.response.status);
  });
});
