import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import { limits } from "../../src/base/limits.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const mutatePath = "/mutate-batch-forkspacer-com-v1-module";

/** Sends a body in chunks without Content-Length, as a client that streams would. */
function postChunked(server: LiveServer, path: string, chunk: Buffer, count: number) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.running.port,
        method: "POST",
        path,
        ca: server.ca,
        servername: "localhost",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (res) => {
        let text = "";
        res.on("data", (data) => {
          text += data;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    for (let i = 0; i < count; i++) req.write(chunk);
    req.end();
  });
}

describe("bad input against the live server", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("answers 413 to a body over 7 MiB, declared or streamed, and keeps serving", async () => {
    const tooBig = `{"padding":"${" ".repeat(limits.bodyBytes)}"}`;
    const declared = await server.post(validatePath, tooBig);
    assert.equal(declared.status, 413);
    assert.match(declared.json.error, /exceeds 7340032 bytes \(7 MiB\)/);
    const streamed = await postChunked(server, validatePath, Buffer.alloc(1024 * 1024, 0x20), 8);
    assert.equal(streamed.status, 413);
    const ok = await server.post(
      validatePath,
      admissionReview({ operation: "CREATE", object: helmModule() }),
    );
    assert.equal(ok.json.response.allowed, true);
  });

  it("admits a body just under the limit as far as size goes", async () => {
    const review = admissionReview({ operation: "CREATE", object: helmModule() });
    const text = JSON.stringify(review);
    const padded = `${text.slice(0, -1)},"padding":"${" ".repeat(limits.bodyBytes - text.length - 20)}"}`;
    const reply = await server.post(validatePath, padded);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.response.uid, review.request?.uid);
  });

  it("denies an object larger than the API server accepts from a client, before parsing it, validating and mutating", async () => {
    const module = helmModule();
    if (module.spec.helm) module.spec.helm.values = [{ raw: { blob: "x".repeat(limits.objectBytes) } }];
    const sent = Buffer.byteLength(JSON.stringify(module));
    for (const path of [validatePath, mutatePath]) {
      const review = admissionReview({ operation: "CREATE", object: module });
      const reply = await server.post(path, review);
      assert.equal(reply.status, 200);
      const { response } = reply.json;
      assert.equal(response.uid, review.request?.uid);
      assert.equal(response.allowed, false);
      assert.equal(response.status.details.causes.length, 1);
      assert.equal(
        response.status.details.causes[0].message,
        `Forbidden: the object is at least ${sent} bytes as JSON, over the ${limits.objectBytes} the API server accepts (Request entity too large: limit is ${limits.objectBytes}); make the object smaller (rule webhook.work-budget)`,
      );
    }
  });

  it("judges every object a client can send, whatever the body's size: an UPDATE of two 2 MB objects, an object longer only as Go escapes it", async () => {
    const large = helmModule();
    if (large.spec.helm) large.spec.helm.values = [{ raw: { blob: "x".repeat(2_000_000) } }];
    const update = admissionReview({ operation: "UPDATE", object: large, oldObject: large });
    const updated = await server.post(validatePath, update);
    assert.ok(JSON.stringify(update).length > limits.objectBytes);
    assert.equal(updated.json.response.allowed, true, updated.text.slice(0, 500));
    // 1,000,000 "<" as the API server writes them (\u003c): 6 MB of text, 1 MB sent by the client.
    const escaped = helmModule();
    if (escaped.spec.helm) escaped.spec.helm.values = [{ raw: { blob: "<".repeat(1_000_000) } }];
    const text = JSON.stringify(admissionReview({ operation: "CREATE", object: escaped })).replaceAll(
      "<",
      "\\u003c",
    );
    assert.ok(text.length > limits.objectBytes && text.length < limits.bodyBytes);
    const judged = await server.post(validatePath, text);
    assert.equal(judged.json.response.allowed, true, judged.text.slice(0, 500));
  });

  it("answers 400 to a body that is not JSON, naming the problem", async () => {
    const reply = await server.post(validatePath, '{"apiVersion": "admission.k8s.io/v1",');
    assert.equal(reply.status, 400);
    assert.match(reply.json.error, /^request body is not valid JSON: /);
  });

  it("answers 400 to a Content-Type other than application/json; accepts parameters and any case", async () => {
    const review = admissionReview({ operation: "CREATE", object: helmModule() });
    const text = await server.post(validatePath, review, { "content-type": "text/plain" });
    assert.equal(text.status, 400);
    assert.equal(text.json.error, 'Content-Type must be application/json, got "text/plain"');
    const missing = await server.post(validatePath, review, {});
    assert.equal(missing.status, 400);
    const withCharset = await server.post(validatePath, review, {
      "content-type": "Application/JSON; charset=utf-8",
    });
    assert.equal(withCharset.status, 200);
  });

  it("answers 400 to an AdmissionReview of another version, or without request or uid", async () => {
    const review = admissionReview({ operation: "CREATE", object: helmModule() });
    const v1beta1 = await server.post(validatePath, { ...review, apiVersion: "admission.k8s.io/v1beta1" });
    assert.equal(v1beta1.status, 400);
    assert.match(
      v1beta1.json.error,
      /expected apiVersion admission\.k8s\.io\/v1 and kind AdmissionReview, got apiVersion "admission\.k8s\.io\/v1beta1"/,
    );
    const otherKind = await server.post(validatePath, { ...review, kind: "ConversionReview" });
    assert.match(otherKind.json.error, /kind "ConversionReview"/);
    const noRequest = await server.post(validatePath, { apiVersion: review.apiVersion, kind: review.kind });
    assert.equal(noRequest.status, 400);
    assert.equal(noRequest.json.error, "not an AdmissionReview: AdmissionReview has no request");
    const noUid = await server.post(validatePath, {
      ...review,
      request: { ...review.request, uid: undefined },
    });
    assert.equal(noUid.status, 400);
    assert.equal(noUid.json.error, "not an AdmissionReview: request.uid must be a non-empty string");
  });

  it("denies an object of another kind on a Module path with a clear message", async () => {
    const workspace = { apiVersion: "batch.forkspacer.com/v1", kind: "Workspace", metadata: { name: "w" } };
    for (const path of [validatePath, mutatePath]) {
      const wrongRequestKind = await server.post(
        path,
        admissionReview({
          operation: "CREATE",
          object: workspace,
          kind: "Workspace",
          resource: "workspaces",
        }),
      );
      assert.equal(wrongRequestKind.status, 200);
      assert.equal(wrongRequestKind.json.response.allowed, false);
      assert.equal(
        wrongRequestKind.json.response.status.message,
        "this webhook admits batch.forkspacer.com/v1, Kind=Module only, but the request is for batch.forkspacer.com/v1, Kind=Workspace",
      );
      const wrongObject = await server.post(
        path,
        admissionReview({ operation: "CREATE", object: workspace }),
      );
      assert.equal(wrongObject.json.response.allowed, false);
      assert.equal(
        wrongObject.json.response.status.message,
        'request.object is a "Workspace", but this webhook admits Module only',
      );
    }
  });

  it("judges a review whose unchecked envelope fields hold maps and lists (a map with a toString key threw)", async () => {
    const review = admissionReview({ operation: "CREATE", object: helmModule() });
    for (const odd of [{ toString: "" }, { valueOf: 1 }, [1, 2], -1]) {
      const reply = await server.post(validatePath, {
        ...review,
        request: { ...review.request, namespace: odd, name: odd },
      });
      assert.equal(reply.status, 200, `${JSON.stringify(odd)}: ${reply.text}`);
      assert.equal(reply.json.response.allowed, true, JSON.stringify(reply.json));
    }
  });

  it("accepts the ?timeout= query the API server appends", async () => {
    const reply = await server.post(
      `${validatePath}?timeout=10s`,
      admissionReview({ operation: "CREATE", object: helmModule() }),
    );
    assert.equal(reply.json.response.allowed, true);
  });

  it("answers 404 for unknown paths and 405 for GET on a webhook path", async () => {
    assert.equal((await server.get("/validate-nothing")).status, 404);
    assert.equal((await server.get(validatePath)).status, 405);
  });

  it("answers a hostile regex against a 60 KB value in linear time", async () => {
    // (a+)+$ against "aaa…a!" takes a backtracking engine 2^100000 steps: it would never answer.
    const module = helmModule();
    module.config = [{ name: "Host", alias: "host", string: { regex: "(a+)+$" } }];
    module.spec.config = { host: `${"a".repeat(60_000)}!` };
    if (module.spec.helm) module.spec.helm.values = [];
    const reply = await server.post(validatePath, admissionReview({ operation: "CREATE", object: module }));
    assert.equal(reply.json.response.allowed, false);
    assert.deepEqual(
      reply.json.response.status.details.causes.map((cause: { field: string }) => cause.field),
      ["spec.config.host"],
    );
    assert.match(reply.json.response.status.message, /must match the regular expression "\(a\+\)\+\$"/);
  });
});

describe("an unexpected exception in a kind's rules", () => {
  const boom = () => {
    throw new TypeError("cannot read properties of undefined (reading 'x')");
  };
  const throwingKind: ResourceKind = {
    group: "batch.forkspacer.com",
    version: "v1",
    kind: "Module",
    validator: { validate: boom, validateTransition: async () => boom() },
    defaulter: { applyDefaults: boom },
  };
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer([throwingKind]);
  });
  after(() => server.close());

  it("still answers an AdmissionReview with the uid, allowed: false, code 500, and keeps serving", async () => {
    for (const [path, operation] of [
      [validatePath, "CREATE"],
      [validatePath, "UPDATE"],
      [mutatePath, "CREATE"],
    ] as const) {
      const review = admissionReview({ operation, object: helmModule(), oldObject: helmModule() });
      const reply = await server.post(path, review);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.json.kind, "AdmissionReview");
      assert.equal(reply.json.response.uid, review.request?.uid);
      assert.equal(reply.json.response.allowed, false);
      assert.equal(reply.json.response.status.code, 500);
      assert.match(
        reply.json.response.status.message,
        /internal error while reviewing: TypeError: cannot read/,
      );
    }
    assert.equal((await server.get("/healthz")).status, 200);
  });
});
