import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ReviewPool, type ReviewPoolOptions, smallSemiSpaceMb } from "../../src/isolation/review-pool.js";
import type { BlockingWorkerData } from "../support/blocking-review-worker.js";

const entry = new URL("../support/blocking-review-worker.ts", import.meta.url);

/**
 * A pool of `blocking-review-worker`s without a standby, with the small young generation and a
 * minute's deadline unless `settings` say otherwise. `releaseBlocked` lets the reviews that block go
 * on, `judgedCount` is how many reviews the workers judged, `logged` what the pool logged.
 */
async function blockingPool(settings: Pick<ReviewPoolOptions, "size"> & Partial<ReviewPoolOptions>) {
  const release = new SharedArrayBuffer(4);
  const judged = new SharedArrayBuffer(4);
  const logged: Record<string, unknown>[] = [];
  const pool = await ReviewPool.start({
    entry,
    workerData: { release, judged } satisfies BlockingWorkerData,
    heapMb: 64,
    semiSpaceMb: smallSemiSpaceMb,
    deadlineMs: 60_000,
    log: (fields) => logged.push(fields),
    standby: false,
    ...settings,
  });
  const releaseBlocked = () => {
    Atomics.store(new Int32Array(release), 0, 1);
    Atomics.notify(new Int32Array(release), 0);
  };
  return { pool, releaseBlocked, judgedCount: () => Atomics.load(new Int32Array(judged), 0), logged };
}

/**
 * Two workers; reviews arriving while both are busy are handed ahead to a busy worker, so that it takes
 * the next without sleeping. A review handed ahead of a worker whose review runs long must be taken back
 * and judged by the other worker, and judged once.
 */
describe("review pool: a review handed ahead never waits behind a slow one", { timeout: 120_000 }, () => {
  let started: Awaited<ReturnType<typeof blockingPool>>;
  before(async () => {
    started = await blockingPool({ size: 2 });
  });
  after(() => started.pool.close());

  const review = async (name: string, block = false) => {
    const answer = await started.pool.review(
      "/review",
      new TextEncoder().encode(JSON.stringify({ name, block })),
    );
    assert.equal(answer.status, 200);
    return JSON.parse(answer.body) as { name: string; threadId: number };
  };

  it("takes back the review queued behind a blocked one and gives it to the other worker", async () => {
    // In one turn: the slow one to the first worker, the next to the second, the third ahead of the
    // first worker (both are busy). Only its being taken back lets it be answered before the release.
    const slow = review("slow", true);
    const quick = review("quick");
    const behind = review("behind");
    const [quickAnswer, behindAnswer] = await Promise.all([quick, behind]);
    assert.equal(behindAnswer.name, "behind");
    assert.equal(behindAnswer.threadId, quickAnswer.threadId, "answered by the worker that was free");
    started.releaseBlocked();
    const slowAnswer = await slow;
    assert.notEqual(slowAnswer.threadId, behindAnswer.threadId);
    // The blocked worker skips the review taken back from it: it still serves, and nothing was judged twice.
    const more = await Promise.all(["a", "b", "c", "d"].map((name) => review(name)));
    assert.deepEqual(
      more.map((answer) => answer.name),
      ["a", "b", "c", "d"],
    );
    // Which worker takes them depends on how soon each answer is back (the first idle worker takes the
    // next): the one that was blocked must be among them.
    assert.ok(
      more.some((answer) => answer.threadId === slowAnswer.threadId),
      "the worker that was blocked serves",
    );
    assert.equal(started.judgedCount(), 7);
  });
});

/**
 * Each worker claims each hand-over in a cell of its own shared memory (`ReviewClaims`, 16 cells, by
 * the hand-over's number). Numbered across the pool, a worker's review and the one handed ahead of it
 * shared a cell whenever 16 hand-overs lay between them (here: 16 workers each handed a review and
 * then one ahead, in one turn; under load, the other worker taking 15 reviews while one thread was not
 * scheduled): the offer of the later one overwrote the earlier one's, the worker skipped its review and
 * judged the one ahead, whose answer was not the review the pool waited for. Three seconds later the
 * worker was ended as never having started it (its review judged again), and while its thread exited
 * the memory budget had no room: a full `npm run bench` answered clean reviews 429.
 */
describe("review pool: a worker's hand-overs never share a claim", { timeout: 120_000 }, () => {
  it("judges every review once and ends no worker when each of 16 is handed two before it takes one", async () => {
    const workers = 16;
    const { pool, releaseBlocked, judgedCount, logged } = await blockingPool({
      size: workers,
      heapMb: 32,
      deadlineMs: 1_000,
    });
    try {
      // Every worker is held as it reads this, before it takes the reviews handed to it below.
      pool.broadcast({ stall: true });
      const names = Array.from({ length: 2 * workers }, (_, i) => `review ${i}`);
      // In one turn: a review to each worker, then one ahead of each.
      const answers = names.map((name) =>
        pool.review("/review", new TextEncoder().encode(JSON.stringify({ name }))),
      );
      releaseBlocked();
      const answered = await Promise.all(answers);
      assert.deepEqual(
        answered.map((answer) => answer.status),
        names.map(() => 200),
      );
      assert.deepEqual(
        answered.map((answer) => JSON.parse(answer.body).name),
        names,
      );
      assert.equal(judgedCount(), names.length, "each review judged once");
      assert.deepEqual(
        logged.filter((fields) => fields.level === "error"),
        [],
        "no worker ended",
      );
    } finally {
      await pool.close();
    }
  });
});

/**
 * Review ids and hand-overs cross in `Int32Array`s of shared memory (the mailboxes): past 2^31 they
 * would arrive negative, and an answer whose id no longer matched its review's would be dropped (at
 * 3,000 reviews a second, after eight days).
 */
describe("review pool: review ids and hand-overs go round within int32", { timeout: 120_000 }, () => {
  it("answers each review, judged once, as the numbers pass 2^31", async () => {
    const { pool, judgedCount, logged } = await blockingPool({
      size: 1,
      heapMb: 32,
      deadlineMs: 1_000,
      firstNumber: 2 ** 31 - 2,
    });
    try {
      const names = ["a", "b", "c", "d"];
      const answered = [];
      for (const name of names)
        answered.push(await pool.review("/review", new TextEncoder().encode(JSON.stringify({ name }))));
      assert.deepEqual(
        answered.map((answer) => [answer.status, JSON.parse(answer.body).name]),
        names.map((name) => [200, name]),
      );
      assert.equal(judgedCount(), names.length);
      assert.deepEqual(
        logged.filter((fields) => fields.level === "error"),
        [],
      );
    } finally {
      await pool.close();
    }
  });
});

describe("review pool: answers cross back in order, whatever their size", { timeout: 120_000 }, () => {
  it("answers a review whose answer is too large for a slot, and the one handed ahead behind it", async () => {
    const { pool, releaseBlocked } = await blockingPool({ size: 1 });
    try {
      const send = (name: string, fields: Record<string, unknown>) =>
        pool.review("/review", new TextEncoder().encode(JSON.stringify({ name, ...fields })));
      // In one turn, to the one worker: a blocked review whose answer is 100,000 bytes (it crosses as a
      // message, a marker in its slot), and a small one ahead of it, answered in the slot after.
      const large = send("large", { block: true, answerBytes: 100_000 });
      const small = send("small", {});
      releaseBlocked();
      const [largeAnswer, smallAnswer] = await Promise.all([large, small]);
      assert.equal(largeAnswer.status, 200);
      assert.equal(JSON.parse(largeAnswer.body).name, "large");
      assert.equal((JSON.parse(largeAnswer.body).pad as string).length, 100_000);
      assert.equal(largeAnswer.report?.log.uid, "large");
      assert.equal(JSON.parse(smallAnswer.body).name, "small");
      assert.deepEqual(smallAnswer.report, {
        kind: "Review",
        allowed: true,
        log: {
          uid: "small",
          kind: "Review",
          object: "small",
          operation: "CREATE",
          dryRun: false,
          patched: false,
        },
      });
    } finally {
      await pool.close();
    }
  });
});

describe("review pool: the queue is bounded in count (issue 41)", { timeout: 120_000 }, () => {
  it("answers a review past maxQueued 429 at once, naming the bound, and judges the queued ones", async () => {
    const { pool, releaseBlocked } = await blockingPool({ size: 1, maxQueued: 2 });
    try {
      const send = (name: string, block = false) =>
        pool.review("/review", new TextEncoder().encode(JSON.stringify({ name, block })));
      // In one turn: the blocked one to the worker, one ahead of it, two queued, the fifth over the bound.
      const sent = [send("blocked", true), send("ahead"), send("queued 1"), send("queued 2"), send("over")];
      const over = await sent[4];
      assert.equal(over?.status, 429);
      assert.match(Buffer.from(over?.body ?? []).toString(), /review queue is full \(2 reviews waiting/);
      releaseBlocked();
      const statuses = (await Promise.all(sent.slice(0, 4))).map((answer) => answer.status);
      assert.deepEqual(statuses, [200, 200, 200, 200]);
    } finally {
      await pool.close();
    }
  });
});

describe("review pool: what it keeps of bodies counts against the memory budget (issue 41)", {
  timeout: 120_000,
}, () => {
  it("counts each kept head, and a body handed ahead as a copy, until the review is answered", async () => {
    const { pool, releaseBlocked } = await blockingPool({ size: 1 });
    try {
      const idle = pool.workersMemory().bytes;
      const body = (name: string, bytes: number, block = false) => {
        const text = JSON.stringify({ name, block, pad: "" });
        return new TextEncoder().encode(
          JSON.stringify({ name, block, pad: "x".repeat(bytes - text.length) }),
        );
      };
      // In one turn: a blocked review of 40,000 bytes to the worker (too large for its mailbox:
      // transferred, its 16 KiB head kept), then one of 36,000 bytes handed ahead of it (a copy sent, the
      // body kept whole, and its head).
      const blocked = pool.review("/review", body("blocked", 40_000, true));
      const ahead = pool.review("/review", body("ahead", 36_000));
      assert.equal(pool.workersMemory().bytes - idle, 16 * 1024 + 16 * 1024 + 36_000);
      assert.match(pool.workersMemory().what, /KiB of bodies the pool keeps/);
      releaseBlocked();
      assert.deepEqual(
        (await Promise.all([blocked, ahead])).map((answer) => answer.status),
        [200, 200],
      );
      assert.equal(pool.workersMemory().bytes, idle);
      // In one turn, two bodies that fit the worker's mailbox (one to the worker, one ahead): copied
      // into it (counted with the workers), the pool keeps nothing beyond the bodies their requests hold.
      const small = pool.review("/review", body("small", 2_000));
      const smallAhead = pool.review("/review", body("small ahead", 3_000));
      assert.equal(pool.workersMemory().bytes, idle);
      assert.deepEqual(
        (await Promise.all([small, smallAhead])).map((answer) => answer.status),
        [200, 200],
      );
    } finally {
      await pool.close();
    }
  });
});
