import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import {
  bytesOf,
  failedAnswer,
  type Judge,
  type KindIdentity,
  type ReviewAnswer,
  type ReviewInProgress,
} from "../admission/review-protocol.js";
import type { Logger } from "../base/log.js";
import { ReviewClaims } from "./review-claims.js";
import { AnswerMailbox, ReviewMailbox } from "./review-mailbox.js";
import { ReviewNote } from "./review-note.js";
import type { FromWorker, ToWorker, WorkerStart } from "./review-pool.js";
import { ownThreadId } from "./thread-cpu.js";

/** What a review worker judges with, built from its `workerData`. */
export interface WorkerSetup {
  paths: ReadonlySet<string>;
  judge: Judge;
  /**
   * Each path's kind: the pool answers for its uid a review whose worker ended before it read the
   * request, and the worker judges one review of each before it says it is ready (`warmUp`).
   */
  kindOf?: ReadonlyMap<string, KindIdentity>;
  /** State from the main thread (its cluster caches' changes), in the order it was sent. */
  onState?(state: unknown): void;
}

/**
 * The review worker's side of `ReviewPool`: builds its kinds with `setup` (a failure is reported and
 * ends the worker, so `serve` stops at start with the message), then judges each review it is handed
 * and answers with the bytes. Its log lines go to the main thread's logger. It says it is ready only
 * once it has judged a review of each kind (`warmUp`): a cold worker's first reviews cost many times a
 * warm one's (code compiled on first use), which under load ran past the wall limit before the
 * review's uid was even read.
 */
export function runReviewWorker(
  setup: (data: unknown, log: Logger) => WorkerSetup | Promise<WorkerSetup>,
): void {
  if (!parentPort) throw new Error("runReviewWorker runs in a worker thread");
  const port: MessagePort = parentPort;
  const start = workerData as WorkerStart;
  const note = new ReviewNote(start.note);
  const claims = new ReviewClaims(start.claims);
  const mailbox = new ReviewMailbox(start.mailbox);
  const answers = new AnswerMailbox(start.answers);
  const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const log: Logger = (fields) => send({ type: "log", fields });
  // State sent while the kinds are built (the greeting) arrives as events and waits for them, in order.
  // Once the worker takes reviews it reads its port between them (`takeReviews`), and its event loop
  // turns only while a review awaits something other than a promise: whatever arrives then, the same.
  const early: unknown[] = [];
  let heard = (message: ToWorker) => {
    if (message.type === "state") early.push(message.state);
  };
  port.on("message", (message: ToWorker) => heard(message));
  Promise.resolve()
    .then(() => setup(start.settings, log))
    .then(
      async (setupDone) => {
        for (const state of early.splice(0)) setupDone.onState?.(state);
        await warmUp(setupDone);
        // Reviews are handed over only once the worker is ready.
        send({
          type: "ready",
          paths: [...setupDone.paths],
          kinds: [...(setupDone.kindOf ?? [])],
          tid: ownThreadId(),
        });
        await takeReviews(setupDone);
      },
      (error: unknown) => {
        send({ type: "failed", message: (error as Error)?.message ?? String(error) });
        port.close();
      },
    );

  /**
   * Judges the reviews handed over, one at a time, in the order handed; one the pool took back is
   * skipped. Between reviews the worker sleeps in its mailbox (`Atomics.wait`), not in its event loop:
   * its port's messages (state, a body too large for a slot) are read before each review. So its
   * event loop turns only while a review awaits something other than a promise: judging must await
   * whatever it starts (a timer, a `nextTick` or a stream write left running would wait for the next
   * such await, which may never come). Node's `worker.terminate()` still ends a worker asleep here:
   * V8 wakes a futex waiter for an interrupt.
   */
  async function takeReviews(setupDone: WorkerSetup): Promise<void> {
    // Reviews too large for a slot, by hand-over, until the worker reaches their markers.
    const large = new Map<number, Extract<ToWorker, { type: "review" }>>();
    heard = (message) => {
      if (message.type === "state") setupDone.onState?.(message.state);
      else large.set(message.handOver, message);
    };
    const readPort = () => {
      for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port))
        heard(received.message as ToWorker);
    };
    for (;;) {
      const bell = mailbox.bell();
      readPort();
      const handed = mailbox.take();
      if (!handed) {
        mailbox.sleep(bell);
        continue;
      }
      const crossed = large.get(handed.handOver);
      large.delete(handed.handOver);
      const body = handed.body ?? (crossed && new Uint8Array(crossed.body));
      const path = crossed?.path ?? handed.path;
      if (!body || !claims.claim(handed.handOver)) continue;
      if (body.byteLength >= emptiedBeforeBytes) collectYoung?.({ type: "minor" });
      await review(setupDone, handed.id, path, body);
    }
  }

  async function review(setupDone: WorkerSetup, id: number, path: string, body: Uint8Array) {
    let inProgress: ReviewInProgress | undefined;
    let answer: ReviewAnswer;
    try {
      answer = await setupDone.judge(path, body, (review) => {
        inProgress = review;
        if (!note.write(id, review)) send({ type: "judging", id, review });
      });
    } catch (error) {
      log({
        level: "error",
        msg: "review failed",
        uid: inProgress?.uid,
        error: String((error as Error)?.stack ?? error),
      });
      answer = inProgress
        ? failedAnswer(inProgress, `while reviewing: ${String(error)}`)
        : { status: 500, body: JSON.stringify({ error: "internal error" }) };
    }
    const report = answer.report && JSON.stringify(answer.report);
    if (answers.put(id, answer.status, answer.body, report)) return;
    // Too large for a slot (a patch of a large object): as a message, its marker keeping its place.
    const message: FromWorker = {
      type: "answer",
      id,
      status: answer.status,
      body: answer.body,
      report: answer.report,
    };
    start.answerPort.postMessage(message);
    answers.marker(id);
  }
}

/**
 * Bodies from this size are judged in an emptied young generation: what earlier reviews left there is
 * dead (nothing of a review outlives it: `WorkBudget.memo`), so the collection copies next to nothing,
 * and the review's parsed objects and what its rules make get the whole of it (a worker's semi-space
 * grows to 32 MiB) before a scavenge copies them while they are alive. Measured against the same
 * build without it (`serve`, each review from a quiet process to a quiet process, 10 rounds, means):
 * ModuleReleaseMeta `matchLabels` x 50,000 kept 123 against 145 ms, ConfigMap `data` x 50,000 kept
 * 129 against 150, Module `spec.helm.values` x 100,000 UPDATE 139 against 169. A semi-space fixed at
 * 32 MiB from the start (`--min-semi-space-size`) gained nothing more and cost 8 MiB per idle worker.
 */
const emptiedBeforeBytes = 1024 * 1024;
const collectYoung = (globalThis as { gc?: (options: { type: "minor" }) => void }).gc;

/**
 * One review of each served path's kind judged and thrown away: the parse, the envelope, the kind's
 * rules and the answer's encoding compiled before the worker takes reviews. The object is the kind's
 * bare identity (every rule that needs more finds it missing), an UPDATE from itself, so that both
 * objects' paths run; whatever it costs is spent before the worker is ready, not on a review's clock.
 */
async function warmUp(setup: WorkerSetup): Promise<void> {
  for (const [path, kind] of setup.kindOf ?? []) {
    const object = {
      apiVersion: kind.group === "" ? kind.version : `${kind.group}/${kind.version}`,
      kind: kind.kind,
      metadata: { name: "warm-up", namespace: "warm-up" },
    };
    for (const operation of ["CREATE", "UPDATE"]) {
      const review = {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        request: {
          uid: "warm-up",
          kind,
          name: "warm-up",
          namespace: "warm-up",
          operation,
          object,
          ...(operation === "UPDATE" ? { oldObject: object } : {}),
          dryRun: true,
        },
      };
      try {
        await setup.judge(path, bytesOf(JSON.stringify(review)));
      } catch {
        // A warm-up is no review: whatever it meets, the real ones are judged (and answered) as usual.
      }
    }
  }
}
