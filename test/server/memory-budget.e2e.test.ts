import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { largeSemiSpaceMb, workerMemoryMb } from "../../src/isolation/review-pool.js";
import {
  chunked,
  cleanReview,
  firstAnswer,
  jsonType,
  openRaw,
  padded,
  type RawConnection,
  rawRequest,
  requestHead,
  sendEndlessBody,
  type Target,
  validatePath,
} from "../support/attacker.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";

const MiB = 1024 * 1024;

/** One review worker (no standby) at its heap limit, and `bodiesMb` for request bodies. */
const budgetMb = (bodiesMb: number) => workerMemoryMb(96, true, largeSemiSpaceMb) + bodiesMb;

describe("memory budget: past it, a review is answered 429 at once and nothing grows (issue 41)", {
  timeout: 120_000,
}, () => {
  let server: LiveServer;
  let target: Target;
  before(async () => {
    server = await startLiveServer(undefined, { memoryBudgetMb: budgetMb(5) });
    target = { port: server.running.port, ca: server.ca };
  });
  after(() => server.close());

  it("refuses a body declared larger than the room left with 429 naming the budget, reading none of it", async () => {
    const head = requestHead("POST", validatePath, { ...jsonType, "Content-Length": 6 * MiB });
    const outcome = await sendEndlessBody(target, head, 6 * MiB);
    assert.match(outcome.answer, /^HTTP\/1\.1 429 /);
    assert.match(outcome.answer, new RegExp(`--memory-budget ${budgetMb(5)} MiB`));
    assert.equal(outcome.closed, true);
    assert.equal(server.budget?.held, 0);
  });

  it("stops reading a chunked body once it outgrows the room, with 429", async () => {
    const answer = await rawRequest(
      target,
      requestHead("POST", validatePath, { ...jsonType, "Transfer-Encoding": "chunked" }),
      chunked(padded(cleanReview(), 6 * MiB), 64 * 1024),
    );
    assert.equal(answer.status, 429);
    assert.match(answer.body, /memory budget/);
    assert.equal(server.budget?.held, 0);
  });

  it("holds two 2 MiB bodies in 5 MiB, answers six more 429 at once, judges the two and a clean one, gives every byte back", async () => {
    const large = padded(cleanReview(), 2 * MiB);
    const head = requestHead("POST", validatePath, { ...jsonType, "Content-Length": large.length });
    const connections = await Promise.all(Array.from({ length: 8 }, () => openRaw(target)));
    const answered: RawConnection[] = [];
    // Heads only: a body that fits waits for its bytes, one that does not is answered at once.
    const sixAnswered = new Promise<void>((done) => {
      for (const connection of connections) {
        void connection.until(/^HTTP/).then(() => {
          answered.push(connection);
          if (answered.length === 6) done();
        });
        connection.socket.write(head);
      }
    });
    await sixAnswered;
    for (const connection of answered) assert.match(connection.received(), /^HTTP\/1\.1 429 /);
    assert.equal(server.budget?.held, 4 * MiB + 2 * (large.length - 2 * MiB));
    const held = connections.filter((connection) => !answered.includes(connection));
    for (const connection of held) connection.socket.write(large);
    for (const answer of await Promise.all(held.map(firstAnswer))) {
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.body).response.allowed, true);
    }
    for (const connection of connections) connection.socket.destroy();
    const clean = await server.post(validatePath, cleanReview());
    assert.equal(clean.json.response.allowed, true);
    assert.equal(server.budget?.held, 0);
  });
});
