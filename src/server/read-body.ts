import type { IncomingMessage } from "node:http";

/** The body's bytes, in a buffer of their own (never Node's shared pool: it is handed to a worker). */
export type Body =
  | { bytes: Uint8Array }
  | { tooLarge: true }
  | { overBudget: true }
  | { tooFragmented: true };

/**
 * Room for a body's bytes, taken before they are held: `take` grows what the body holds by `bytes`,
 * or says false when the process has no room left (the memory budget). The caller returns it.
 */
export interface BodyRoom {
  take(bytes: number): boolean;
}

/** A chunked body's first buffer; it doubles as the body grows (nginx's client_body_buffer_size). */
const firstChunkedBytes = 16 * 1024;

/**
 * The pieces a body may arrive in: `free` pieces, and one more per `bytesEach` bytes. Each piece (an
 * HTTP chunk, a TLS record) costs the main thread a few µs of parser callbacks and stream events
 * whatever its size, so a million one-byte chunks cost seconds of CPU for 1 MB; with this bound, the
 * pieces cost no more than the bytes. The API server sends a review with Content-Length in TLS
 * records of 1 KiB and more (Go's crypto/tls), far within it.
 */
export const bodyPieces = { free: 1024, bytesEach: 256 };

/**
 * A request body, up to `limit` bytes, into one buffer: sized from Content-Length, or (chunked) grown
 * geometrically, so whatever the chunking, what the body holds is its bytes and at most as many again.
 * Each chunk is copied and dropped at once: a chunk Buffer kept until the end (as the bytes once were,
 * in an array) held its share of the TLS record it came in, and a million one-byte chunks took 400
 * MiB and the process. A body declared larger is not read at all, and one that passes the limit while
 * streaming is read no further: the caller answers 413 and closes the connection, so neither memory
 * nor CPU goes to a body that will be refused; so is one that comes in too many pieces
 * (`bodyPieces`). Every byte held is first taken from `room`; when it has
 * none, the body is read no further and the caller answers 429.
 */
export function readBody(req: IncomingMessage, limit: number, room?: BodyRoom): Promise<Body> {
  return new Promise((resolve, reject) => {
    const declared = req.headers["content-length"];
    const size = declared === undefined ? undefined : Number(declared);
    if (size !== undefined && size > limit) {
      resolve({ tooLarge: true });
      return;
    }
    let held = size ?? Math.min(firstChunkedBytes, limit);
    if (room && !room.take(held)) {
      resolve({ overBudget: true });
      return;
    }
    let bytes = new Uint8Array(held);
    let length = 0;
    let pieces = 0;
    let settled = false;
    const stop = (outcome: Body) => {
      settled = true;
      req.off("data", onData);
      req.pause();
      bytes = new Uint8Array(0);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      if (++pieces > bodyPieces.free + length / bodyPieces.bytesEach) return stop({ tooFragmented: true });
      const needed = length + chunk.length;
      if (needed > held) {
        if (needed > limit) return stop({ tooLarge: true });
        const grown = Math.min(Math.max(held * 2, needed), limit);
        if (room && !room.take(grown - held)) return stop({ overBudget: true });
        const next = new Uint8Array(grown);
        next.set(bytes.subarray(0, length));
        bytes = next;
        held = grown;
      }
      bytes.set(chunk, length);
      length = needed;
    };
    req.on("data", onData);
    req.on("end", () => {
      if (settled) return;
      settled = true;
      // A grown buffer is cut to the body (a copy: the bytes are handed to a worker whole).
      resolve({ bytes: length === bytes.length ? bytes : bytes.slice(0, length) });
    });
    req.on("error", (error) => {
      if (!settled) reject(error);
    });
    // "close" comes after every request, once its response is sent; only before "end" does it mean the
    // client went away mid-body. The error is built only then: an Error captures a stack trace, which
    // cost about 25 µs of CPU on every review when it was built unconditionally.
    req.on("close", () => {
      if (!settled) {
        settled = true;
        reject(new Error("the client closed the connection before the body ended"));
      }
    });
  });
}
