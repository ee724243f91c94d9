import type { ReviewInProgress } from "../admission/review-protocol.js";

/**
 * Where a review worker notes the review it is judging (its uid, kind and name, once its request is
 * read), in memory shared with the main thread: written on every review, read only when the worker
 * is ended or dies before answering. A message for it cost about a quarter of what handing a review
 * over and back costs; this costs a few stores. A sequence number, odd while the note is being written,
 * lets a reader tell a whole note from one half written.
 */
export class ReviewNote {
  private readonly header: Int32Array;
  private readonly data: Uint8Array;

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(headerBytes + noteBytes)) {
    this.header = new Int32Array(memory, 0, 3);
    this.data = new Uint8Array(memory, headerBytes);
  }

  /** Notes `review` as review `id`'s; false when it does not fit (the caller then sends it). */
  write(id: number, review: ReviewInProgress): boolean {
    const text = JSON.stringify(review);
    Atomics.add(this.header, sequence, 1);
    const { read, written } = encoder.encodeInto(text, this.data);
    const whole = read === text.length;
    Atomics.store(this.header, idAt, whole ? id : 0);
    Atomics.store(this.header, lengthAt, written ?? 0);
    Atomics.add(this.header, sequence, 1);
    return whole;
  }

  /** Review `id`'s note, if the worker wrote one whole. */
  read(id: number): ReviewInProgress | undefined {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = Atomics.load(this.header, sequence);
      if (before % 2 === 1) continue;
      const noted = Atomics.load(this.header, idAt);
      const length = Atomics.load(this.header, lengthAt);
      const text = decoder.decode(this.data.slice(0, length));
      if (Atomics.load(this.header, sequence) !== before) continue;
      if (noted !== id) return undefined;
      try {
        return JSON.parse(text) as ReviewInProgress;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}

const sequence = 0;
const idAt = 1;
const lengthAt = 2;
const headerBytes = 12;
/** A note's fields are bounded (uid 256 characters, name and namespace 512 each): at most about 6 KB. */
const noteBytes = 16 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
