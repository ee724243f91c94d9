/**
 * Where the pool hands a review worker its reviews, in memory shared with it: a ring of slots that the
 * main thread copies a review's path and body into, and the worker takes them from in order. The
 * worker sleeps in `Atomics.wait` on a doorbell cell and is woken by `Atomics.notify`: no event loop
 * turn, MessagePort or message event on its side (issue 42: at a fixed rate each review wakes a
 * sleeping worker, and that wake-up was most of a hand-over's cost). A body larger than a slot crosses
 * as a message (transferred) and only a marker takes its slot, so the worker still takes reviews in
 * the order handed. The doorbell rings for messages too (state from the main thread), which the
 * worker reads with `receiveMessageOnPort` before each review, so a review handed after a change is
 * judged with it.
 */
export class ReviewMailbox {
  /** [posted, taken, doorbell]: counts that run on past 2^31, compared for equality and by difference only. */
  private readonly control: Int32Array;
  /** Per slot: [body length (-1: it crossed as a message), review id, hand-over, path length]. */
  private readonly meta: Int32Array;
  private readonly data: Uint8Array;

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(mailboxBytes)) {
    this.control = new Int32Array(memory, 0, 3);
    this.meta = new Int32Array(memory, controlBytes, slotCount * 4);
    this.data = new Uint8Array(memory, controlBytes + metaBytes);
  }

  /** Main thread: whether a slot is free. */
  hasRoom(): boolean {
    return ((Atomics.load(this.control, posted) - Atomics.load(this.control, taken)) | 0) < slotCount;
  }

  /** Main thread: whether review's path and body fit a slot (else the body crosses as a message). */
  fits(path: string, body: Uint8Array): boolean {
    return Buffer.byteLength(path) + body.byteLength <= slotBytes;
  }

  /**
   * Main thread: review `id`'s path and body into the next slot (call only with room, and only when
   * they fit), and the worker woken. Without a body, a marker: the body has crossed as a message, sent
   * before this call so that the worker finds it when it reads the marker.
   */
  put(id: number, handOver: number, path: string, body: Uint8Array | undefined): void {
    const at = Atomics.load(this.control, posted);
    const slot = at & (slotCount - 1);
    const start = slot * slotBytes;
    let pathLength = 0;
    if (body) {
      pathLength = encoder.encodeInto(path, this.data.subarray(start, start + slotBytes)).written;
      this.data.set(body, start + pathLength);
    }
    this.meta[slot * 4] = body ? body.byteLength : -1;
    this.meta[slot * 4 + 1] = id;
    this.meta[slot * 4 + 2] = handOver;
    this.meta[slot * 4 + 3] = pathLength;
    Atomics.store(this.control, posted, (at + 1) | 0);
    this.ring();
  }

  /** Main thread: a message was sent to the worker (state); it reads it before its next review. */
  ring(): void {
    Atomics.add(this.control, doorbell, 1);
    Atomics.notify(this.control, doorbell, 1);
  }

  /** Worker: the doorbell's count, read before looking for work; `sleep` returns at once once it moved. */
  bell(): number {
    return Atomics.load(this.control, doorbell);
  }

  /** Worker: sleeps until the doorbell rings past `bell` (returns at once when it already has). */
  sleep(bell: number): void {
    Atomics.wait(this.control, doorbell, bell);
  }

  /**
   * Worker: the next review handed over, taken from its slot (the body copied out), or undefined when
   * none is waiting. `body` undefined: it crossed as the message with this hand-over.
   */
  take(): { id: number; handOver: number; path: string; body: Uint8Array | undefined } | undefined {
    const at = Atomics.load(this.control, taken);
    if (Atomics.load(this.control, posted) === at) return undefined;
    const slot = at & (slotCount - 1);
    const start = slot * slotBytes;
    const length = this.meta[slot * 4] as number;
    const pathLength = this.meta[slot * 4 + 3] as number;
    const review = {
      id: this.meta[slot * 4 + 1] as number,
      handOver: this.meta[slot * 4 + 2] as number,
      // TextDecoder reads no shared memory: the path's bytes are copied first.
      path: decoder.decode(this.data.slice(start, start + pathLength)),
      body: length < 0 ? undefined : this.data.slice(start + pathLength, start + pathLength + length),
    };
    Atomics.store(this.control, taken, (at + 1) | 0);
    return review;
  }
}

const posted = 0;
const taken = 1;
const doorbell = 2;
/**
 * Slots per worker, a power of two: the worker takes its review out of its slot as it starts it; one
 * ahead of it, and one taken back (which keeps its slot until the worker passes it), are at most three
 * at once. The pool hands a worker nothing while its slots are full.
 */
const slotCount = 4;
/** A slot's bytes (path and body): most reviews fit; a larger one crosses as a message. */
const slotBytes = 32 * 1024;
const controlBytes = 16;
const metaBytes = slotCount * 4 * 4;
/** What a worker's mailbox holds, for the memory budget. */
export const mailboxBytes = controlBytes + metaBytes + slotCount * slotBytes;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Where a review worker puts its answers for the main thread, in memory shared with it: the answer's
 * status, JSON text and report (as JSON) copied into a slot, and the main thread woken through
 * `Atomics.waitAsync` (one task on its event loop, no message to deserialize or event to dispatch).
 * An answer larger than a slot crosses as a message on the answer channel and only a marker takes its
 * slot, so the main thread still reads answers in the order given (it matches each to the review its
 * worker judges).
 */
export class AnswerMailbox {
  /** [posted, taken]. */
  private readonly control: Int32Array;
  /** Per slot: [body bytes (-1: it crossed as a message), review id, status, report bytes]. */
  private readonly meta: Int32Array;
  private readonly data: Uint8Array;

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(answerMailboxBytes)) {
    this.control = new Int32Array(memory, 0, 2);
    this.meta = new Int32Array(memory, controlBytes, answerSlotCount * 4);
    this.data = new Uint8Array(memory, controlBytes + answerSlotCount * 16);
  }

  /**
   * Worker: the answer into the next slot, the main thread woken. False when it does not fit a slot:
   * the caller sends it as a message and then calls `marker`. Waits while every slot is taken (the main
   * thread has not yet read them).
   */
  put(id: number, status: number, body: string, report: string | undefined): boolean {
    const at = this.room();
    const slot = at & (answerSlotCount - 1);
    const start = slot * answerSlotBytes;
    const room = this.data.subarray(start, start + answerSlotBytes);
    const wrote = encoder.encodeInto(body, room);
    if (wrote.read < body.length) return false;
    let reportBytes = 0;
    if (report !== undefined) {
      const reported = encoder.encodeInto(report, room.subarray(wrote.written));
      if (reported.read < report.length) return false;
      reportBytes = reported.written;
    }
    this.publish(at, slot, wrote.written, id, status, reportBytes);
    return true;
  }

  /** Worker: the answer to review `id` crossed as a message; the main thread reads it in its turn. */
  marker(id: number): void {
    const at = this.room();
    this.publish(at, at & (answerSlotCount - 1), -1, id, 0, 0);
  }

  /** Main thread: the next answer, or undefined when none; `body` undefined: it is the next message on the channel. */
  take(): { id: number; status: number; body: string | undefined; report: string | undefined } | undefined {
    const at = Atomics.load(this.control, posted);
    const was = Atomics.load(this.control, taken);
    if (at === was) return undefined;
    const slot = was & (answerSlotCount - 1);
    const start = this.data.byteOffset + slot * answerSlotBytes;
    const bodyBytes = this.meta[slot * 4] as number;
    const reportBytes = this.meta[slot * 4 + 3] as number;
    const answer = {
      id: this.meta[slot * 4 + 1] as number,
      status: this.meta[slot * 4 + 2] as number,
      // Buffer reads shared memory in place (TextDecoder would need a copy first).
      body: bodyBytes < 0 ? undefined : Buffer.from(this.memory, start, bodyBytes).toString(),
      report:
        reportBytes > 0 ? Buffer.from(this.memory, start + bodyBytes, reportBytes).toString() : undefined,
    };
    Atomics.store(this.control, taken, (was + 1) | 0);
    // A worker waiting for a free slot (the main thread fell behind) goes on.
    Atomics.notify(this.control, taken);
    return answer;
  }

  /**
   * Main thread: a promise settled once an answer is posted (or `release` is called); undefined when
   * one is waiting already.
   */
  posted(): Promise<unknown> | undefined {
    const result = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(
      this.control,
      posted,
      Atomics.load(this.control, taken),
    );
    return result.async ? result.value : undefined;
  }

  /** Main thread: settles a promise `posted` gave (the worker is ended: nothing more will come). */
  release(): void {
    Atomics.notify(this.control, posted);
  }

  /** The slot to write next, once one is free. */
  private room(): number {
    const at = Atomics.load(this.control, posted);
    for (;;) {
      const was = Atomics.load(this.control, taken);
      if (((at - was) | 0) < answerSlotCount) return at;
      Atomics.wait(this.control, taken, was, 50);
    }
  }

  private publish(
    at: number,
    slot: number,
    bodyBytes: number,
    id: number,
    status: number,
    reportBytes: number,
  ) {
    this.meta[slot * 4] = bodyBytes;
    this.meta[slot * 4 + 1] = id;
    this.meta[slot * 4 + 2] = status;
    this.meta[slot * 4 + 3] = reportBytes;
    Atomics.store(this.control, posted, (at + 1) | 0);
    Atomics.notify(this.control, posted);
  }
}

/** `Atomics.waitAsync` (ES2024, in Node since 16), which the project's ES2022 library does not declare. */
type WaitAsync = (
  cells: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

/** Answers waiting for the main thread at most (it reads them all each time it is woken); a power of two. */
const answerSlotCount = 8;
/** An answer slot's bytes (the answer's text and its report): an answer with a large patch crosses as a message. */
const answerSlotBytes = 16 * 1024;
/** What a worker's answer mailbox holds, for the memory budget. */
export const answerMailboxBytes = controlBytes + answerSlotCount * 16 + answerSlotCount * answerSlotBytes;
