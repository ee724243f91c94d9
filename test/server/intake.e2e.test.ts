import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { linger } from "../../src/server/app.js";
import { bodyPieces } from "../../src/server/read-body.js";
import {
  chunked,
  cleanReview,
  jsonType,
  padded,
  rawRequest,
  requestHead,
  sendEndlessBody,
  type Target,
  validatePath,
} from "../support/attacker.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";

/**
 * What a server may let in of a body it does not read: the linger's bytes, and the socket buffers
 * between the two ends (a few MiB on loopback); a server that reads such a body takes all it is sent.
 */
const unreadBound = linger.bytes + 12 * 1024 * 1024;
const endless = 64 * 1024 * 1024;

describe("intake: a body is read only where a review is, into one buffer, in bounded pieces (issue 41)", {
  timeout: 120_000,
}, () => {
  let server: LiveServer;
  let target: Target;
  before(async () => {
    server = await startLiveServer();
    target = { port: server.running.port, ca: server.ca };
  });
  after(() => server.close());

  it("refuses a review sent as a million one-byte chunks with 413, without reading it all", async () => {
    const answer = await rawRequest(
      target,
      requestHead("POST", validatePath, { ...jsonType, "Transfer-Encoding": "chunked" }),
      chunked(padded(cleanReview(), 1_000_000), 1),
    );
    assert.equal(answer.status, 413);
    assert.match(answer.body, /more than 1024 pieces/);
  });

  it("judges a review in 4-byte chunks within the bound, and one in 1 KiB chunks", async () => {
    for (const [size, bytes] of [
      [4, bodyPieces.free],
      [1024, 2_000_000],
    ] as const) {
      const body = padded(cleanReview(), Math.max(bytes, Buffer.byteLength(cleanReview())));
      const answer = await rawRequest(
        target,
        requestHead("POST", validatePath, { ...jsonType, "Transfer-Encoding": "chunked" }),
        chunked(body, size),
      );
      assert.equal(answer.status, 200, `${size}-byte chunks: ${answer.body}`);
      assert.equal(JSON.parse(answer.body).response.allowed, true);
    }
  });

  for (const [what, head] of [
    ["GET /healthz", requestHead("GET", "/healthz", { "Content-Length": 1e12 })],
    ["GET on the webhook path", requestHead("GET", validatePath, { "Content-Length": 1e12 })],
    ["POST to an unknown path", requestHead("POST", "/nowhere", { ...jsonType, "Content-Length": 1e12 })],
    ["a review that is not JSON", requestHead("POST", validatePath, { "Content-Length": 1e12 })],
    // One chunk of 4 GiB, its bytes following.
    ["a chunked GET", `${requestHead("GET", "/readyz", { "Transfer-Encoding": "chunked" })}ffffffff\r\n`],
  ] as const) {
    it(`answers ${what} with a body at once and closes, reading no more than the linger`, async () => {
      const outcome = await sendEndlessBody(target, head, endless);
      assert.equal(outcome.closed, true, `${outcome.sent} bytes taken, the connection still open`);
      assert.ok(outcome.sent <= unreadBound, `${outcome.sent} bytes taken`);
      assert.match(outcome.answer, /^HTTP\/1\.1 [2-5]\d\d [\s\S]*connection: close/i);
    });
  }

  it("keeps a bodiless GET /healthz on its keep-alive connection", async () => {
    const reply = await server.get("/healthz");
    assert.equal(reply.status, 200);
    assert.notEqual(reply.headers.connection, "close");
  });
});
