/**
 * Which reviews a worker may still start, in memory shared between the main thread and the worker.
 * The pool hands a busy worker its next review ahead of time (so that the worker finds it in its port
 * and does not sleep between reviews) and takes it back when the review ahead of it runs long. The
 * worker claims each review as it starts it; a review taken back first is skipped. A compare-and-swap
 * on one cell per review decides which side wins, so a review is judged once or handed elsewhere, never both.
 */
export class ReviewClaims {
  private readonly cells: Int32Array;

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(cellCount * 4)) {
    this.cells = new Int32Array(memory);
  }

  /** The main thread offers review `id` to the worker. */
  offer(id: number): void {
    Atomics.store(this.cells, id % cellCount, token(id));
  }

  /** The worker starts review `id`: false when the pool took it back. */
  claim(id: number): boolean {
    return Atomics.compareExchange(this.cells, id % cellCount, token(id), -token(id)) === token(id);
  }

  /** The main thread takes review `id` back: false when the worker has already started it. */
  takeBack(id: number): boolean {
    return Atomics.compareExchange(this.cells, id % cellCount, token(id), 0) === token(id);
  }
}

/**
 * A worker holds at most a few offered reviews at once (the one it judges and one ahead), so a cell is
 * reused only for a review long since claimed or taken back; its id tells them apart.
 */
const cellCount = 16;

/** A review's id as a positive int32 (ids count on past 2^31 in a long-lived process). */
function token(id: number): number {
  return ((id - 1) % 0x3fff_ffff) + 1;
}
