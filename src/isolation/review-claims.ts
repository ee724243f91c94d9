/**
 * Which reviews a worker may still start, in memory shared between the main thread and the worker.
 * The pool hands a busy worker its next review ahead of time (so that the worker finds it in its port
 * and does not sleep between reviews) and takes it back when the review ahead of it runs long. The
 * worker claims each hand-over as it starts it; one taken back first is skipped. A compare-and-swap on
 * one cell per hand-over decides which side wins, so a review is judged once or handed elsewhere, never
 * both. Hand-overs, not reviews, are numbered: a review taken back may later be handed to the same
 * worker again while the first message for it is still in the port, and that one must stay skipped.
 * They are numbered here, per worker, not across the pool: a worker's live hand-overs are then
 * consecutive and never share a cell (numbered across the pool, a review and the one handed ahead of
 * it shared one whenever 16 hand-overs to other workers lay between them, and the later offer
 * overwrote the earlier: the worker skipped its review, and the pool ended it three seconds later).
 */
export class ReviewClaims {
  private readonly cells: Int32Array;

  constructor(
    readonly memory: SharedArrayBuffer = new SharedArrayBuffer(cellCount * 4),
    /** The last hand-over offered (main thread); the first offered is the next number. */
    private offered = 0,
  ) {
    this.cells = new Int32Array(memory);
  }

  /** The main thread offers the worker its next hand-over: its number, which the worker claims. */
  offer(): number {
    const handOver = nextNumber(this.offered);
    this.offered = handOver;
    Atomics.store(this.cells, handOver % cellCount, token(handOver));
    return handOver;
  }

  /** The worker starts hand-over `handOver`: false when the pool took it back. */
  claim(handOver: number): boolean {
    return (
      Atomics.compareExchange(this.cells, handOver % cellCount, token(handOver), -token(handOver)) ===
      token(handOver)
    );
  }

  /** Whether the worker has started hand-over `handOver` (the main thread looks; a later hand-over's offer reuses the cell). */
  isClaimed(handOver: number): boolean {
    return Atomics.load(this.cells, handOver % cellCount) === -token(handOver);
  }

  /** The main thread takes hand-over `handOver` back: false when the worker has already started it. */
  takeBack(handOver: number): boolean {
    return Atomics.compareExchange(this.cells, handOver % cellCount, token(handOver), 0) === token(handOver);
  }
}

/**
 * A worker holds at most a few live hand-overs at once (the one it judges and one ahead), numbered in
 * turn, so a cell is reused only for a hand-over long since claimed or taken back; its number tells
 * them apart.
 */
const cellCount = 16;

/**
 * The number after `number`, for review ids and hand-overs: they cross in `Int32Array`s of shared
 * memory (the mailboxes, the note), so they go round within the positive int32s rather than wrap to
 * negative ones (an answer whose id no longer matched its review's would be dropped: at 3,000 reviews
 * a second, after eight days).
 */
export function nextNumber(number: number): number {
  return number >= lastNumber ? 1 : number + 1;
}

const lastNumber = 0x7fff_ffff;

/** A hand-over's number as a positive int32 (numbers count on past 2^31 in a long-lived process). */
function token(handOver: number): number {
  return ((handOver - 1) % 0x3fff_ffff) + 1;
}
