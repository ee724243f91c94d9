import { createServer } from "node:https";
import { isMainThread, parentPort, receiveMessageOnPort, Worker, workerData } from "node:worker_threads";
import { AnswerMailbox, ReviewMailbox } from "../../src/isolation/review-mailbox.js";
import { allowedAnswer, benchTls, listen } from "./common.js";

/**
 * The floor with isolation: the least a webhook does that judges each review off its event loop, as
 * module-admission must (a review may not hold up another), over module-admission's crossing
 * (src/isolation/review-mailbox.ts). The main thread reads the body and copies it into the mailbox of
 * the first idle one of two worker threads (of the one with fewer reviews when both are busy); the
 * worker, asleep in `Atomics.wait` and woken by `Atomics.notify`, JSON.parses it and puts the answer's
 * text in its answer mailbox, and the main thread, woken through `Atomics.waitAsync`, writes it. No
 * rule, no deadline, no heap limit: only the crossing. Module-admission's figures over this one's show
 * what its rules and protocol cost beyond crossing.
 * Usage: node .bench-build/bench/servers/worker-floor.js CERT_DIR PORT (compiled by bench/run.ts)
 */
if (isMainThread) serve();
else answerInWorker(workerData as { reviews: SharedArrayBuffer; answers: SharedArrayBuffer });

interface Lane {
  worker: Worker;
  reviews: ReviewMailbox;
  answers: AnswerMailbox;
  /** Reviews handed to the worker and not yet answered. */
  inFlight: number;
  /** Reviews waiting for a free slot in `reviews` (at saturation: more in flight than slots). */
  backlog: { id: number; body: Uint8Array }[];
  /** Whether the main thread waits for an answer in `answers`. */
  waiting: boolean;
}

const path = "/review";

function serve(): void {
  const lanes: Lane[] = [0, 1].map(() => {
    const reviews = new ReviewMailbox();
    const answers = new AnswerMailbox();
    const worker = new Worker(new URL(import.meta.url), {
      argv: process.argv.slice(2),
      workerData: { reviews: reviews.memory, answers: answers.memory },
    });
    return { worker, reviews, answers, inFlight: 0, backlog: [], waiting: false };
  });
  const writers = new Map<number, (answer: string) => void>();
  const answered = (lane: Lane) => {
    for (let answer = lane.answers.take(); answer; answer = lane.answers.take()) {
      lane.inFlight--;
      writers.get(answer.id)?.(answer.body as string);
      writers.delete(answer.id);
    }
    while (lane.backlog.length > 0 && lane.reviews.hasRoom()) {
      const next = lane.backlog.shift() as { id: number; body: Uint8Array };
      lane.reviews.put(next.id, next.id, path, next.body);
    }
    awaitAnswer(lane);
  };
  const awaitAnswer = (lane: Lane) => {
    if (lane.waiting || lane.inFlight === 0) return;
    const posted = lane.answers.posted();
    if (posted === undefined) return answered(lane);
    lane.waiting = true;
    void posted.then(() => {
      lane.waiting = false;
      answered(lane);
    });
  };
  let next = 1;
  listen(
    createServer(benchTls(), (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const id = next++;
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        writers.set(id, (answer) => {
          res.writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(answer),
          });
          res.end(answer);
        });
        let lane = lanes[0] as Lane;
        for (const each of lanes) if (each.inFlight < lane.inFlight) lane = each;
        lane.inFlight++;
        // The bench's bodies fit a slot.
        if (lane.backlog.length === 0 && lane.reviews.hasRoom()) lane.reviews.put(id, id, path, body);
        else lane.backlog.push({ id, body });
        awaitAnswer(lane);
      });
    }),
  );
}

function answerInWorker({
  reviews,
  answers,
}: {
  reviews: SharedArrayBuffer;
  answers: SharedArrayBuffer;
}): void {
  const port = parentPort;
  if (!port) return;
  const inbox = new ReviewMailbox(reviews);
  const outbox = new AnswerMailbox(answers);
  // Started once the module has run; from then on the worker sleeps in its mailbox, not its event loop.
  setImmediate(() => {
    for (;;) {
      const bell = inbox.bell();
      const handed = inbox.take();
      if (!handed) {
        inbox.sleep(bell);
        continue;
      }
      const body =
        handed.body ?? new Uint8Array((receiveMessageOnPort(port) as { message: ArrayBuffer }).message);
      let answer: string;
      try {
        answer = allowedAnswer(
          JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString()),
        );
      } catch {
        answer = "{}"; // the readiness probe's empty body
      }
      outbox.put(handed.id, 200, answer, undefined);
    }
  });
}
