import { parentPort, workerData } from "node:worker_threads";
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
  const port = parentPort;
  if (!port) throw new Error("runReviewWorker runs in a worker thread");
  const start = workerData as WorkerStart;
  const note = new ReviewNote(start.note);
  const claims = new ReviewClaims(start.claims);
  const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const log: Logger = (fields) => send({ type: "log", fields });
  // State sent before the kinds are built (the greeting) waits for them, in order.
  const early: unknown[] = [];
  // Reviews are judged one at a time, in the order handed; one the pool took back is skipped.
  const waiting: Extract<ToWorker, { type: "review" }>[] = [];
  let built: WorkerSetup | undefined;
  port.on("message", (message: ToWorker) => {
    if (message.type === "state") {
      if (built) built.onState?.(message.state);
      else early.push(message.state);
      return;
    }
    if (built) {
      waiting.push(message);
      if (waiting.length === 1) void judgeInTurn(built);
    }
  });
  Promise.resolve()
    .then(() => setup(start.settings, log))
    .then(
      async (setupDone) => {
        for (const state of early.splice(0)) setupDone.onState?.(state);
        await warmUp(setupDone);
        built = setupDone;
        // Reviews handed over meanwhile (none: the pool hands over only to a ready worker) wait in turn.
        send({
          type: "ready",
          paths: [...setupDone.paths],
          kinds: [...(setupDone.kindOf ?? [])],
          tid: ownThreadId(),
        });
      },
      (error: unknown) => {
        send({ type: "failed", message: (error as Error)?.message ?? String(error) });
        port.close();
      },
    );

  async function judgeInTurn(setupDone: WorkerSetup) {
    for (let message = waiting[0]; message; message = waiting[0]) {
      if (claims.claim(message.handOver)) await review(setupDone, message);
      waiting.shift();
    }
  }

  async function review(setupDone: WorkerSetup, message: Extract<ToWorker, { type: "review" }>) {
    const { id } = message;
    let inProgress: ReviewInProgress | undefined;
    let answer: ReviewAnswer;
    try {
      answer = await setupDone.judge(message.path, new Uint8Array(message.body), (review) => {
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
    send({ type: "answer", id, status: answer.status, body: answer.body, report: answer.report });
  }
}

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
