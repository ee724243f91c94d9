import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { type HttpReply, type LiveServer, startLiveServer } from "../support/live-server.js";
import { customModule, helmModule } from "../support/modules.js";
import { admissionReview, clone, specExamples } from "../support/reviews.js";

const paths = ["/validate-batch-forkspacer-com-v1-module", "/mutate-batch-forkspacer-com-v1-module"];
const batch = 25;
const runs = 400; // 400 batches of 25: 10,000 requests

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path into a JSON value, as lists of keys and indexes. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, i) => pathsOf(item, [...prefix, i]))];
  if (value !== null && typeof value === "object") {
    return [...here, ...Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...prefix, key]))];
  }
  return here;
}

/** The review with the value at `path` replaced (or removed, when `replacement` is undefined). */
function mutateAt(review: unknown, path: (string | number)[], replacement: Json | undefined): unknown {
  if (path.length === 0) return replacement;
  const copy = clone(review) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

const seeds = [
  ...specExamples("forkspacer-module-reference.md", "Module"),
  helmModule(),
  customModule(),
].flatMap((object) => [
  admissionReview({ operation: "CREATE", object }),
  admissionReview({ operation: "UPDATE", object, oldObject: helmModule() }),
]);

const hostileJson: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue() as fc.Arbitrary<Json>,
  fc.constantFrom<Json>("", "{{.config.x}}", "(a+)+$", "Module", "../../etc", -1, 1e308, 2 ** 53 + 1, [], {}),
);

/** A valid review with one to four of its values replaced by arbitrary JSON, or removed. */
const mutatedReview = fc
  .tuple(
    fc.constantFrom(...seeds),
    fc.array(fc.tuple(fc.nat(), fc.option(hostileJson, { nil: undefined })), { minLength: 1, maxLength: 4 }),
  )
  .map(([seed, edits]) => {
    let review: unknown = seed;
    for (const [pick, replacement] of edits) {
      const candidates = pathsOf(review);
      review = mutateAt(review, candidates[pick % candidates.length] ?? [], replacement);
    }
    return JSON.stringify(review ?? null);
  });

const randomBody = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string(),
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
);

const requestArb = fc.record({
  path: fc.constantFrom(...paths),
  body: fc.oneof({ weight: 4, arbitrary: mutatedReview }, { weight: 1, arbitrary: randomBody }),
});

/** What every answer must be: an AdmissionReview for the request's uid, or a 400 saying what is wrong. */
function assertWellFormed(body: string, reply: HttpReply): void {
  if (reply.status === 400) {
    assert.equal(typeof reply.json?.error, "string", reply.text);
    return;
  }
  assert.equal(reply.status, 200, reply.text);
  const { uid } = JSON.parse(body).request;
  assert.equal(reply.json.apiVersion, "admission.k8s.io/v1");
  assert.equal(reply.json.kind, "AdmissionReview");
  const { response } = reply.json;
  assert.equal(response.uid, uid);
  assert.equal(typeof response.allowed, "boolean");
  if (!response.allowed) {
    assert.equal(typeof response.status.code, "number");
    assert.notEqual(response.status.code, 500, `the rules threw: ${response.status.message}`);
    assert.ok(response.status.message.length > 0);
  }
  if (response.patch !== undefined) {
    assert.equal(response.patchType, "JSONPatch");
    assert.ok(Array.isArray(JSON.parse(Buffer.from(response.patch, "base64").toString())));
  }
  for (const warning of response.warnings ?? []) assert.ok(warning.length <= 120, warning);
}

describe("fuzzing the live server", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("answers 10,000 random and mutated AdmissionReviews well-formed, without crashing or hanging", {
    timeout: 600_000,
  }, async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: batch, maxLength: batch }), async (requests) => {
        const replies = await Promise.all(requests.map(({ path, body }) => server.post(path, body)));
        sent += requests.length;
        replies.forEach((reply, i) => {
          assertWellFormed(requests[i]?.body ?? "", reply);
        });
      }),
      { numRuns: runs },
    );
    assert.ok(sent >= 10_000, `sent ${sent}`);
    assert.equal((await server.get("/healthz")).status, 200);
    const valid = await server.post(
      paths[0] ?? "",
      admissionReview({ operation: "CREATE", object: helmModule() }),
    );
    assert.equal(valid.json.response.allowed, true);
  });
});
