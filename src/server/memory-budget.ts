import type { BodyRoom } from "./read-body.js";

const MiB = 1024 * 1024;

/** A body this small (an ordinary review's is a few KiB) may take the room the reserve keeps. */
const smallBodyBytes = 64 * 1024;
/** Kept from larger bodies: a thousand ordinary reviews, or two copies of a largest one the pool keeps. */
const reserveBytes = 16 * MiB;

/** A body's share of the budget: taken as the body grows, returned once its review is answered. */
export interface BodyShare extends BodyRoom {
  release(): void;
}

/**
 * The process's memory budget beyond its base (Envoy's overload manager, as one number): what the
 * review workers may hold (`workers()`: each judging worker's whole heap limit, reserved whether it
 * uses it or not, and an ended one's until its thread has exited), and what request bodies hold, from
 * their first byte read until their review is answered (in flight, queued or being judged: a body's
 * bytes are handed to its worker outside the worker's heap). A body that does not fit is not read,
 * and its review is answered 429 at once: past the budget nothing grows.
 */
export class MemoryBudget {
  private heldBytes = 0;

  constructor(
    /** The whole budget (`--memory-budget`), in bytes. */
    readonly totalBytes: number,
    /** What the review workers may hold now, in bytes, and what they are (for the 429's message). */
    private readonly workers: () => { bytes: number; what: string },
  ) {}

  /** Bytes request bodies may hold together now. */
  get bodyBytes(): number {
    return Math.max(0, this.totalBytes - this.workers().bytes);
  }

  /** Bytes request bodies hold now. */
  get held(): number {
    return this.heldBytes;
  }

  /** A share for one body: empty until it takes. */
  share(): BodyShare {
    let taken = 0;
    return {
      take: (bytes) => {
        const room = this.bodyBytes;
        // A review's usual body (a few KiB) may use the whole room; a larger one leaves a reserve, so
        // that largest bodies and the copies the pool keeps of them never shut ordinary reviews out.
        const limit = taken + bytes <= smallBodyBytes ? room : room - Math.min(reserveBytes, room / 8);
        if (this.heldBytes + bytes > limit) return false;
        this.heldBytes += bytes;
        taken += bytes;
        return true;
      },
      release: () => {
        this.heldBytes -= taken;
        taken = 0;
      },
    };
  }

  /** The 429's message: the limit, and how it is spent. */
  refusal(): string {
    const workers = this.workers();
    return `the webhook is at its memory budget (--memory-budget ${mib(this.totalBytes)} MiB: ${mib(workers.bytes)} MiB for ${workers.what}, ${mib(this.heldBytes)} MiB held by the request bodies in flight); retry later`;
  }
}

function mib(bytes: number): string {
  return String(Math.round((bytes / MiB) * 10) / 10);
}
