import { setFlagsFromString } from "node:v8";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { scanEnvelope } from "../admission/review-envelope.js";
import {
  failedAnswer,
  type KindIdentity,
  overBudgetAnswer,
  type ReviewAnswer,
  type Reviewer,
  type ReviewInProgress,
  reviewInProgress,
} from "../admission/review-protocol.js";
import { limits } from "../base/limits.js";
import type { Logger } from "../base/log.js";
import { nextNumber, ReviewClaims } from "./review-claims.js";
import { AnswerMailbox, answerMailboxBytes, mailboxBytes, ReviewMailbox } from "./review-mailbox.js";
import { ReviewNote } from "./review-note.js";
import { type ThreadCpuClock, threadCpuClock } from "./thread-cpu.js";

/**
 * The messages between the main thread and a review worker. The main thread hands over a review in
 * the worker's mailbox (`ReviewMailbox`: its path and body copied into shared memory, the worker woken
 * by a futex) or, when its body is larger than a slot, as a message with the body's bytes (the
 * ArrayBuffer transferred, not copied) and a marker in the mailbox. It gets the answer's JSON text
 * back in the worker's answer mailbox (`AnswerMailbox`, woken through `Atomics.waitAsync`), or, too
 * large for a slot, as a message on the answer channel; it never parses a review. Besides:
 * the worker says it is ready (with the paths it serves) and sends lines for the log; the main thread
 * sends state its kinds read (the cluster caches), ringing the mailbox's doorbell. Once it
 * has read a review's request, the worker notes its uid, kind and name in memory shared with the main
 * thread (`ReviewNote`; a message when the note does not fit), so that a review it never finishes can
 * still be answered for its uid.
 */
export type ToWorker =
  | { type: "review"; id: number; handOver: number; path: string; body: ArrayBuffer }
  | { type: "state"; state: unknown };

export type FromWorker =
  | { type: "ready"; paths: string[]; kinds?: [string, KindIdentity][]; tid?: number }
  | { type: "failed"; message: string }
  | { type: "judging"; id: number; review: ReviewInProgress }
  | { type: "answer"; id: number; status: number; body: string; report?: ReviewAnswer["report"] }
  | { type: "log"; fields: Record<string, unknown> };

/**
 * A review worker's `workerData`: what it builds its kinds from, where it notes its reviews, and where
 * it claims each review as it starts it (`ReviewClaims`).
 */
export interface WorkerStart {
  settings: unknown;
  note: SharedArrayBuffer;
  claims: SharedArrayBuffer;
  mailbox: SharedArrayBuffer;
  answers: SharedArrayBuffer;
  /** Where an answer too large for a slot of `answers` is sent (`FromWorker` "answer"). */
  answerPort: MessagePort;
}

export interface ReviewPoolOptions {
  /** The worker's module: it calls `runReviewWorker` (`review-worker.ts`) with what builds its kinds. */
  entry: URL;
  /** What the worker builds its kinds from (flags, which lookups it has): structured-cloneable. */
  workerData: unknown;
  /** Workers judging reviews at once. */
  size: number;
  /** Each worker's heap (V8's old generation), in MiB: a review that needs more ends its worker. */
  heapMb: number;
  /** Each worker's semi-space, in MiB (`largeSemiSpaceMb` or `smallSemiSpaceMb`: `semiSpaceFor`). */
  semiSpaceMb: number;
  /**
   * The CPU time a worker may spend on one review before it is ended (wall time where a thread's CPU
   * time cannot be read); `wallLimitMs` of wall time at most, however little CPU it got.
   */
  deadlineMs: number;
  log: Logger;
  /** State a fresh worker needs before its first review (the caches as they are now). */
  greeting?: () => unknown[];
  /** Keep a worker on standby (default true); tests that end no worker save its start. */
  standby?: boolean;
  /** Reviews waiting for a worker at most (`limits.queuedReviews`); one more is answered 429. */
  maxQueued?: number;
  /** The first review id and each worker's first hand-over (default 1; tests start them near 2^31). */
  firstNumber?: number;
}

interface Job {
  id: number;
  path: string;
  body: Uint8Array;
  /** The body's length (the body itself is the worker's once handed over). */
  bodyBytes: number;
  resolve(answer: ReviewAnswer): void;
  /** Whether its client went away (then, still waiting for a worker, it is not judged). */
  isGone?: () => boolean;
  /** Known once the worker has read the request. */
  review?: ReviewInProgress;
  timer?: NodeJS.Timeout;
  /** When it was handed to its worker (performance.now()). */
  handedAt?: number;
  /**
   * This hand-over's number, what the worker claims: a review taken back and later handed to the same
   * worker again is two hand-overs, and the first one's message, still in the port, must not claim the second.
   */
  handOver?: number;
  /** The worker thread's CPU time when it began this review, at the latest (read on the first look). */
  cpuBase?: number;
  /**
   * The body's first `headBytes`, kept when the body is handed over (transferred, it is the worker's):
   * the whole body when it is that small (then a review whose worker ended before reading it can be
   * judged again), else enough to read the uid of a review whose worker ended before it did.
   */
  head?: Uint8Array;
  /** Handed over again after its first worker ended before it read the request. */
  retried?: boolean;
  /** When it was first handed to a worker: a worker that never starts it is ended `wallLimitMs` after. */
  firstHandedAt?: number;
}

interface Slot {
  worker: Worker;
  /** Where the worker notes the review it is judging. */
  note: ReviewNote;
  /** Where the worker claims each review it starts, and the pool takes back one it has not started. */
  claims: ReviewClaims;
  /** Where the pool hands the worker its reviews. */
  mailbox: ReviewMailbox;
  /** Where the worker puts its answers, and the channel a large one crosses on. */
  answers: AnswerMailbox;
  answerPort: MessagePort;
  /** Whether the main thread waits for an answer in `answers` (`Atomics.waitAsync`). */
  waiting: boolean;
  ready: boolean;
  /** Started and kept idle, to take an ended worker's place at once (a start costs about 0.7 s of CPU). */
  standby: boolean;
  /** Its thread has exited: its memory is the process's again. */
  exited: boolean;
  /** When the pool ended it (performance.now()). */
  endedAt?: number;
  /** The worker thread's CPU time, where it can be read. */
  cpu?: ThreadCpuClock;
  job?: Job;
  /** Reviews handed to the worker behind `job`, in its port: it takes the next without going to sleep. */
  ahead: Job[];
  /** Its `job` has run past `firstLookMs`: it is given nothing more, and what is ahead is taken back. */
  slow: boolean;
  /** Ended by the pool (deadline, shutdown) or dead: never given another review. */
  ended: boolean;
  /** What the worker failed with, when it failed (ERR_WORKER_OUT_OF_MEMORY: its heap limit). */
  error?: Error;
}

/**
 * Reviews judged off the event loop, in a small pool of worker threads, each with a heap limit and a
 * deadline per review: the main thread keeps doing TLS and HTTP for every other review whatever one
 * review costs. A worker that runs out of heap or time is ended and replaced, and its review answered
 * with a denial by the work-budget rule. A worker judges one review at a time. The queue is the
 * pool's; under load a busy worker is handed one review ahead (it then takes it without going to sleep),
 * taken back for another worker once the review before it has run `firstLookMs`, so no review waits
 * behind a slow one longer than that, nor behind one that is ended.
 */
export class ReviewPool implements Reviewer {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** Workers ended whose threads have not exited yet: their memory is still held. */
  private readonly exiting = new Set<Slot>();
  /**
   * Bytes the pool holds of each review handed over and not yet answered, beyond its body (which its
   * request's share of the memory budget counts): the kept head, and the body itself when the worker
   * got a copy. Counted with the workers' memory, so the budget leaves that much less to bodies.
   */
  private readonly kept = new Map<Job, number>();
  private nextId: number;
  private closed = false;
  private servedPaths: ReadonlySet<string> = new Set();
  private restartDelayMs = minRestartDelayMs;
  /** Each path's kind, from the workers: to answer for its uid a review no worker read. */
  private kindOf = new Map<string, KindIdentity>();
  private startup?: { resolve(): void; reject(error: Error): void };

  /** Resolves once every first worker is ready; rejects with a worker's start-up error (and closes). */
  readonly started: Promise<void>;

  /** Starts the workers; the pool takes reviews at once and judges them once a worker is ready. */
  constructor(private readonly options: ReviewPoolOptions) {
    this.nextId = options.firstNumber ?? 1;
    this.started = new Promise<void>((resolve, reject) => {
      this.startup = { resolve, reject };
    }).finally(() => {
      this.startup = undefined;
    });
    this.fill();
  }

  /** A pool whose workers are all ready. */
  static async start(options: ReviewPoolOptions): Promise<ReviewPool> {
    const pool = new ReviewPool(options);
    await pool.started;
    return pool;
  }

  get paths(): ReadonlySet<string> {
    return this.servedPaths;
  }

  isReady(): boolean {
    return !this.closed && this.slots.some((slot) => slot.ready && !slot.ended && !slot.standby);
  }

  review(path: string, body: Uint8Array, isGone?: () => boolean): Promise<ReviewAnswer> {
    if (this.closed) return Promise.resolve(unavailable());
    const maxQueued = this.options.maxQueued ?? limits.queuedReviews;
    if (this.queue.length >= maxQueued) {
      return Promise.resolve(
        jsonAnswer(429, {
          error: `the webhook's review queue is full (${maxQueued} reviews waiting for a worker); retry later`,
        }),
      );
    }
    return new Promise((resolve) => {
      const job: Job = {
        id: this.takeId(),
        path,
        body,
        bodyBytes: body.byteLength,
        resolve: (answer) => {
          this.kept.delete(job);
          resolve(answer);
        },
        isGone,
      };
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** The next review's id. */
  private takeId(): number {
    const id = this.nextId;
    this.nextId = nextNumber(id);
    return id;
  }

  /**
   * What the workers may hold now, for the memory budget: each one that judges (or was ended and has
   * not exited) its heap limit and more (`workerMemoryMb`), the one on standby as it idles.
   */
  workersMemory(): { bytes: number; what: string } {
    const threads = [...this.slots.filter((slot) => !slot.ended), ...this.exiting];
    const judging = threads.filter((slot) => !slot.standby).length;
    const { heapMb, semiSpaceMb } = this.options;
    const mb =
      judging * workerMemoryMb(heapMb, true, semiSpaceMb) +
      (threads.length - judging) * workerMemoryMb(heapMb, false, semiSpaceMb);
    const mailboxes = threads.length * (mailboxBytes + answerMailboxBytes);
    let keptBytes = 0;
    for (const bytes of this.kept.values()) keptBytes += bytes;
    const kept = keptBytes > 0 ? `, ${(keptBytes / 1024).toFixed(0)} KiB of bodies the pool keeps` : "";
    return {
      bytes: mb * 1024 * 1024 + mailboxes + keptBytes,
      what: `${judging} review workers of ${heapMb} MiB heap (${workerMemoryMb(heapMb, true, semiSpaceMb)} MiB each)${threads.length > judging ? " and one on standby" : ""}, their mailboxes ${(mailboxes / 1024).toFixed(0)} KiB${kept}`,
    };
  }

  /** Sends state to every worker (and, through `greeting`, to every fresh one). */
  broadcast(state: unknown): void {
    const message: ToWorker = { type: "state", state };
    for (const slot of this.slots) {
      if (slot.ended) continue;
      slot.worker.postMessage(message);
      slot.mailbox.ring();
    }
  }

  /** Ends every worker; reviews still waiting or being judged get 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve(unavailable());
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        slot.ended = true;
        slot.cpu?.close();
        slot.answers.release();
        slot.answerPort.close();
        for (const job of slot.ahead.splice(0)) job.resolve(unavailable());
        if (slot.job) this.settle(slot, unavailable());
        return slot.worker.terminate();
      }),
    );
  }

  /**
   * `size` workers taking reviews and one on standby: an ended worker's place is taken by the standby
   * at once, and a new standby starts once the ended worker's thread has exited; so a review that ends
   * its worker holds up no other review while its replacement starts, and there are never more
   * threads than `size` and the standby, whose memory the budget reserves.
   */
  private fill(): void {
    if (this.closed) return;
    const live = this.slots.filter((slot) => !slot.ended);
    let serving = live.filter((slot) => !slot.standby).length;
    for (const slot of live) {
      if (slot.standby && serving < this.options.size) {
        slot.standby = false;
        serving++;
      }
    }
    const standby = this.options.standby ?? true;
    const threadsAtMost = this.options.size + (standby ? 1 : 0);
    let threads = live.length + this.exiting.size;
    for (; serving < this.options.size && threads < threadsAtMost; serving++, threads++) this.spawn(false);
    const hasStandby = live.some((slot) => slot.standby);
    if (standby && !hasStandby && threads < threadsAtMost) this.spawn(true);
    this.dispatch();
  }

  private spawn(standby: boolean): void {
    const { options } = this;
    const note = new ReviewNote();
    const claims = new ReviewClaims(undefined, (options.firstNumber ?? 1) - 1);
    const mailbox = new ReviewMailbox();
    const answers = new AnswerMailbox();
    const channel = new MessageChannel();
    const worker = startWorker(
      options.entry,
      {
        settings: options.workerData,
        note: note.memory,
        claims: claims.memory,
        mailbox: mailbox.memory,
        answers: answers.memory,
        answerPort: channel.port2,
      } satisfies WorkerStart,
      options.heapMb,
      options.semiSpaceMb,
      [channel.port2],
    );
    const slot: Slot = {
      worker,
      note,
      claims,
      mailbox,
      answers,
      answerPort: channel.port1,
      waiting: false,
      ahead: [],
      slow: false,
      ready: false,
      standby,
      ended: false,
      exited: false,
    };
    this.slots.push(slot);
    for (const state of options.greeting?.() ?? [])
      worker.postMessage({ type: "state", state } satisfies ToWorker);
    worker.on("message", (message: FromWorker) => this.heard(slot, message));
    worker.on("error", (error) => {
      slot.error = error;
    });
    worker.on("exit", (code) => {
      slot.exited = true;
      if (this.exiting.delete(slot)) {
        this.options.log({
          msg: "an ended review worker has exited: its memory is returned and its place filled",
          exitedAfterMs: Math.round(performance.now() - (slot.endedAt ?? 0)),
        });
        this.fill();
        return;
      }
      this.exited(slot, code);
    });
  }

  private heard(slot: Slot, message: FromWorker): void {
    switch (message.type) {
      case "ready":
        slot.ready = true;
        slot.cpu = threadCpuClock(message.tid);
        this.servedPaths = new Set(message.paths);
        this.kindOf = new Map(message.kinds ?? []);
        this.restartDelayMs = minRestartDelayMs;
        if (this.startup && this.slots.every((each) => each.ready || each.standby)) this.startup.resolve();
        this.dispatch();
        return;
      case "failed":
        slot.error = new Error(message.message);
        return;
      case "judging":
        if (slot.job?.id === message.id) slot.job.review = message.review;
        return;
      case "answer":
        // Answers come through the answer mailbox (`answered`); none is sent on this port.
        return;
      case "log":
        this.options.log(message.fields);
        return;
    }
  }

  /**
   * The answers in `slot`'s answer mailbox, in the order given, each settling the review its worker
   * judged; then, while the worker has a review, the main thread waits for the next (`Atomics.waitAsync`:
   * one task on the event loop when it comes).
   */
  private answered(slot: Slot): void {
    this.takeAnswers(slot);
    this.awaitAnswer(slot);
    this.dispatch();
  }

  private takeAnswers(slot: Slot): void {
    for (let answer = slot.answers.take(); answer; answer = slot.answers.take()) {
      const large =
        answer.body === undefined
          ? (receiveMessageOnPort(slot.answerPort)?.message as Extract<FromWorker, { type: "answer" }>)
          : undefined;
      if (slot.job?.id !== answer.id || slot.ended) continue;
      this.settle(
        slot,
        large
          ? { status: large.status, body: large.body, report: large.report }
          : {
              status: answer.status,
              body: answer.body as string,
              report: answer.report === undefined ? undefined : JSON.parse(answer.report),
            },
      );
      this.begin(slot, slot.ahead.shift());
    }
  }

  /** While `slot`'s worker has a review, the main thread waits for its answer (at most one wait per worker). */
  private awaitAnswer(slot: Slot): void {
    if (slot.waiting || slot.ended || !slot.job) return;
    const posted = slot.answers.posted();
    if (posted === undefined) {
      this.answered(slot);
      return;
    }
    slot.waiting = true;
    void posted.then(() => {
      slot.waiting = false;
      if (!slot.ended) this.answered(slot);
    });
  }

  /**
   * Hands waiting reviews to idle workers first, then to busy ones whose review has not run long and
   * that hold nothing ahead yet: a worker that finds its next review in its port when it answers does
   * not go to sleep and need waking (the wake-up, not the message, is most of a hand-over's cost).
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const serving = (each: Slot) => each.ready && !each.ended && !each.standby && each.mailbox.hasRoom();
      const slot =
        this.slots.find((each) => serving(each) && !each.job) ??
        this.slots.find((each) => serving(each) && !each.slow && each.ahead.length < aheadPerWorker);
      if (!slot) return;
      const job = this.queue.shift() as Job;
      // A review the client gave up on while it waited (the API server's timeout) is not judged.
      if (job.isGone?.()) {
        job.resolve(unavailable());
        continue;
      }
      job.handOver = slot.claims.offer();
      if (slot.mailbox.fits(job.path, job.body)) {
        // Copied into the mailbox: the pool keeps the body itself, which its request's share counts, so a
        // review whose worker ended before reading it can be judged again, and one taken back handed on.
        job.head = job.body;
        this.kept.set(job, 0);
        slot.mailbox.put(job.id, job.handOver, job.path, job.body);
      } else {
        job.head ??= job.body.slice(0, headBytes);
        // Handed ahead, the body is sent as a copy: the review may be taken back and handed elsewhere.
        const body = slot.job ? (job.body.slice().buffer as ArrayBuffer) : ownBuffer(job.body);
        // Beyond the body its request's share counts: the head, and the body again when the worker got a copy.
        this.kept.set(job, job.head.byteLength + (body === job.body.buffer ? 0 : job.body.byteLength));
        slot.worker.postMessage(
          { type: "review", id: job.id, handOver: job.handOver, path: job.path, body } satisfies ToWorker,
          [body],
        );
        // The marker keeps the review's place among those in the mailbox; the worker finds the body in its port.
        slot.mailbox.put(job.id, job.handOver, job.path, undefined);
      }
      if (slot.job) slot.ahead.push(job);
      else this.begin(slot, job);
    }
  }

  /** `job` is (as far as the pool knows) what the worker judges now: its deadline starts. */
  private begin(slot: Slot, job: Job | undefined): void {
    if (!job) return;
    slot.job = job;
    job.handedAt = performance.now();
    job.firstHandedAt ??= job.handedAt;
    const firstLook = Math.min(firstLookMs, this.options.deadlineMs);
    job.timer = setTimeout(() => this.look(slot, job), firstLook);
    // Its answer may be back already (then it is settled here, its timer cleared).
    this.awaitAnswer(slot);
  }

  /**
   * The reviews ahead of a slow one that its worker has not started, back to the front of the queue
   * for other workers; with `all`, every review ahead (its worker is gone: one it had started is judged again).
   */
  private takeBack(slot: Slot, all = false): void {
    const back = slot.ahead.filter((job) => slot.claims.takeBack(job.handOver as number) || all);
    slot.ahead = slot.ahead.filter((job) => !back.includes(job));
    this.queue.unshift(...back);
  }

  /**
   * A review still being judged: ended once its worker has spent the deadline on it (CPU time, so that
   * a loaded or throttled machine does not end a cheap review; wall time where it cannot be read), or
   * after `wallLimitMs` of wall time. The CPU clock is first read `firstLookMs` after the
   * review began (reviews that end sooner cost no read), counting all of that time as spent.
   */
  private look(slot: Slot, job: Job): void {
    if (slot.job !== job || slot.ended) return;
    if (!slot.slow) {
      slot.slow = true;
      this.takeBack(slot);
      this.dispatch();
    }
    const { deadlineMs } = this.options;
    const now = performance.now();
    if (!slot.claims.isClaimed(job.handOver as number)) {
      // Not started yet (its thread not scheduled, on a loaded machine): its clocks start when it is.
      // A worker that does not start it within the wall limit is ended, and the review handed on.
      if (now - (job.firstHandedAt ?? now) >= wallLimitMs(deadlineMs)) {
        this.overrun(slot, 0, now - (job.firstHandedAt ?? now));
        return;
      }
      job.handedAt = now;
      job.cpuBase = undefined;
      job.timer = setTimeout(() => this.look(slot, job), firstLookMs);
      return;
    }
    const wall = now - (job.handedAt ?? 0);
    let spent = wall;
    const cpu = readCpu(slot);
    if (cpu !== undefined) {
      job.cpuBase ??= cpu - wall;
      spent = cpu - job.cpuBase;
    }
    if (spent >= deadlineMs || wall >= wallLimitMs(deadlineMs)) {
      this.overrun(slot, spent, wall);
      return;
    }
    job.timer = setTimeout(() => this.look(slot, job), Math.max(deadlineMs - spent, 10));
  }

  /**
   * The review's deadline passed: its worker is ended and replaced, the review denied. One that ran
   * out of wall time, not CPU, before its request was read (a starved thread) is judged again instead.
   */
  private overrun(slot: Slot, spentMs: number, wallMs: number): void {
    const job = slot.job;
    if (!job || slot.ended) return;
    slot.ended = true;
    const again = spentMs < this.options.deadlineMs && this.retries(slot, job);
    this.options.log({
      level: "error",
      msg: "a review outlasted its deadline: its worker is ended and replaced",
      uid: this.noted(slot, job)?.uid,
      deadlineMs: this.options.deadlineMs,
      spentMs: Math.round(spentMs),
      wallMs: Math.round(wallMs),
    });
    if (!again)
      this.settle(slot, this.unfinished(slot, job, `${this.options.deadlineMs} ms of CPU per review`));
    this.takeBack(slot, true);
    if (again) this.retry(slot, job);
    if (!slot.exited) this.exiting.add(slot);
    slot.endedAt = performance.now();
    void slot.worker.terminate();
    this.replace(slot);
  }

  private exited(slot: Slot, code: number): void {
    if (slot.ended) return;
    // What the worker answered before it died counts.
    this.takeAnswers(slot);
    slot.ended = true;
    const outOfMemory =
      (slot.error as NodeJS.ErrnoException | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
    if (this.startup && !slot.ready) {
      this.startup.reject(slot.error ?? new Error(`a review worker exited with ${code} before it was ready`));
      void this.close();
      return;
    }
    const job = slot.job;
    const review = job && this.noted(slot, job);
    this.options.log({
      level: "error",
      msg: outOfMemory
        ? "a review ran out of its worker's heap: the worker is ended and replaced"
        : "a review worker died: it is replaced",
      uid: review?.uid,
      heapMb: this.options.heapMb,
      code,
      ...(outOfMemory || !slot.error ? {} : { error: String(slot.error.stack ?? slot.error) }),
    });
    const again = job !== undefined && !outOfMemory && this.retries(slot, job);
    if (job && !again) {
      const answer = outOfMemory
        ? this.unfinished(slot, job, `${this.options.heapMb} MiB of memory per review`)
        : review
          ? failedAnswer(
              review,
              `while reviewing: the review worker failed (${String(slot.error?.message ?? `exit ${code}`)})`,
            )
          : this.fromHead(
              job,
              (read) =>
                failedAnswer(read, "while reviewing: the review worker failed before it read the request"),
              () => jsonAnswer(500, { error: "the review worker failed before it read the request" }),
            );
      this.settle(slot, answer);
    }
    this.takeBack(slot, true);
    if (job && again) this.retry(slot, job);
    this.replace(slot);
  }

  /**
   * Whether a review whose worker ended is judged again rather than answered: once, when its worker
   * never read its request (no uid noted: the worker, not the review, failed) and its whole body was kept.
   */
  private retries(slot: Slot, job: Job): boolean {
    return (
      !job.retried &&
      !this.closed &&
      this.noted(slot, job) === undefined &&
      job.head !== undefined &&
      job.head.byteLength === job.bodyBytes
    );
  }

  /** `job`, taken from its ended worker, first in the queue for another (the body from its kept copy). */
  private retry(slot: Slot, job: Job): void {
    if (slot.job === job) {
      slot.job = undefined;
      slot.slow = false;
      clearTimeout(job.timer);
    }
    job.retried = true;
    job.review = undefined;
    job.cpuBase = undefined;
    job.firstHandedAt = undefined;
    job.body = (job.head as Uint8Array).slice();
    this.queue.unshift(job);
    this.options.log({ msg: "a review whose worker ended before reading it is judged again" });
  }

  /**
   * A review no worker read, answered for its uid as read here from the head of its body (bounded:
   * `headBytes`; the API server writes the uid before the objects), or with `otherwise` when it has none.
   */
  private fromHead(
    job: Job,
    answer: (review: ReviewInProgress) => ReviewAnswer,
    otherwise: () => ReviewAnswer,
  ): ReviewAnswer {
    const kind = this.kindOf.get(job.path);
    const envelope = kind && job.head && scanEnvelope(headDecoder.decode(job.head));
    return kind && envelope ? answer(reviewInProgress(kind, envelope)) : otherwise();
  }

  /** What the worker noted of the review it was judging, once it had read its request. */
  private noted(slot: Slot, job: Job): ReviewInProgress | undefined {
    job.review ??= slot.note.read(job.id);
    return job.review;
  }

  /** A review whose worker was ended: denied by the work-budget rule when its request had been read. */
  private unfinished(slot: Slot, job: Job, limit: string): ReviewAnswer {
    const review = this.noted(slot, job);
    if (review) return overBudgetAnswer(review, limit);
    // Not even its request was read within the limit: its uid is read from the head of its body.
    return this.fromHead(
      job,
      (read) => overBudgetAnswer(read, limit),
      () => jsonAnswer(500, { error: `reading the request exceeds the webhook's work budget (${limit})` }),
    );
  }

  private settle(slot: Slot, answer: ReviewAnswer): void {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    slot.slow = false;
    clearTimeout(job.timer);
    job.resolve(answer);
  }

  /** A fresh worker in place of an ended one; after a worker that never got ready, only after a pause. */
  private replace(slot: Slot): void {
    slot.cpu?.close();
    slot.answers.release();
    slot.answerPort.close();
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    if (this.closed) return;
    if (slot.ready) {
      this.fill();
      return;
    }
    this.options.log({
      level: "error",
      msg: "a review worker failed to start: starting another after a pause",
      error: String(slot.error?.message ?? slot.error),
      delayMs: this.restartDelayMs,
    });
    setTimeout(() => this.fill(), this.restartDelayMs).unref();
    this.restartDelayMs = Math.min(this.restartDelayMs * 2, 30_000);
  }
}

const minRestartDelayMs = 1_000;

/**
 * Bytes of a body the pool keeps when it hands the body over: a review's envelope (uid, kind, name,
 * namespace, operation) comes before its objects, and most reviews (a few KB) fit whole.
 */
const headBytes = 16 * 1024;
const headDecoder = new TextDecoder();

/**
 * Each worker's semi-space, in MiB, when the memory budget has room for it (`semiSpaceFor`). A review
 * of a large body keeps its parsed objects alive while its rules run, and every scavenge copies what is
 * alive: with 4 MiB semi-spaces (V8's young generation of 8 MiB) a 6 MiB review's objects were copied
 * out several times during its parse and again during its rules, and the collector's helper threads
 * spent a quarter of the review's CPU doing it. 32 MiB holds a 100,000-item review's objects and most
 * of what its rules make, which then die young, uncopied (16 MiB held the parse only: the rules' first
 * scavenges copied it all the same). A worker grows its semi-spaces only while objects survive.
 */
export const largeSemiSpaceMb = 32;

/** The semi-space of a budget too small for the large one: what the workers had before (young generation 8 MiB). */
export const smallSemiSpaceMb = 4;

/**
 * A worker's young generation as V8 sizes it from its semi-space: two semi-spaces, and a large-object
 * space as big as one (V8 rounds a semi-space up to a power of two: both sizes above are).
 */
const youngGenerationMb = (semiSpaceMb: number) => 3 * semiSpaceMb;

/**
 * What a worker holds beyond its heap limit and its young generation (its isolate's code and
 * builtins, its thread): an idle worker of `serve` measured 31 MiB of RSS on the 2-core development
 * machine with 4 MiB semi-spaces, 12 MiB of it the young generation it could then grow to.
 */
const workerBaseMb = 20;

/**
 * An idle worker (on standby, never judged): `serve` idle measured 220 MiB of RSS with 4 MiB
 * semi-spaces, 234-243 MiB with 16 or 32 (three workers, 2026-12-07).
 */
const idleWorkerMb = (semiSpaceMb: number) => (semiSpaceMb > smallSemiSpaceMb ? 40 : 32);

/** A review worker's memory, in MiB: at its heap limit while it judges, what it holds idle on standby. */
export function workerMemoryMb(heapMb: number, judging: boolean, semiSpaceMb: number): number {
  return judging ? heapMb + youngGenerationMb(semiSpaceMb) + workerBaseMb : idleWorkerMb(semiSpaceMb);
}

/** The wall time a review may take, however little CPU it got: three times its deadline, and 2 s more at least. */
export function wallLimitMs(deadlineMs: number): number {
  return Math.max(3 * deadlineMs, deadlineMs + 2_000);
}

/**
 * When a review's worker's CPU clock is first read (a review done sooner costs no read), and the
 * longest a review handed ahead waits behind another before it is taken back for another worker.
 */
const firstLookMs = 20;

/** Reviews handed to a busy worker behind the one it judges. */
const aheadPerWorker = 1;

function readCpu(slot: Slot): number | undefined {
  try {
    return slot.cpu?.read();
  } catch {
    return undefined;
  }
}

/**
 * A worker with its heap limit. From the sources (tsx: tests, `npm run` scripts) the entry is
 * TypeScript, which a worker can load only through tsx's loader, registered in the worker first; the
 * build (`dist/`, what `npm start` and the image run) starts the JavaScript entry itself.
 */
function startWorker(
  entry: URL,
  workerData: unknown,
  heapMb: number,
  semiSpaceMb: number,
  transferList: MessagePort[],
): Worker {
  forgetProcessHeapFlags();
  exposeCollector();
  const options = {
    workerData,
    transferList,
    resourceLimits: {
      maxOldGenerationSizeMb: heapMb,
      maxYoungGenerationSizeMb: youngGenerationMb(semiSpaceMb),
    },
  };
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, options);
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * V8's heap flags are the process's, and V8 lets them win over a worker's own limits: under
 * `NODE_OPTIONS=--max-old-space-size=200` every worker would get a 200 MiB heap whatever
 * `resourceLimits` says (and a review could take the whole pod's memory). The main thread's heap was
 * sized when it started; cleared now, the flags leave each worker the limits it is given.
 */
function forgetProcessHeapFlags(): void {
  setFlagsFromString("--max-old-space-size=0");
  setFlagsFromString("--max-heap-size=0");
}

/**
 * A worker's global `gc`, for its minor collection before a large body (`review-worker.ts`). The flag is
 * the process's, but only contexts made after it get the function: the main thread's has none.
 */
function exposeCollector(): void {
  setFlagsFromString("--expose-gc");
}

/** The bytes in an ArrayBuffer of their own, to transfer: the body's own buffer when it is exactly that. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
    return bytes.buffer as ArrayBuffer;
  return bytes.slice().buffer as ArrayBuffer;
}

function jsonAnswer(status: number, body: unknown): ReviewAnswer {
  return { status, body: JSON.stringify(body) };
}

function unavailable(): ReviewAnswer {
  return jsonAnswer(503, { error: "the webhook is shutting down" });
}
