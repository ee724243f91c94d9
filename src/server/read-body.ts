import type { IncomingMessage } from "node:http";

/** The body's bytes, in a buffer of their own (never Node's shared pool: it is handed to a worker). */
export type Body = { bytes: Uint8Array } | { tooLarge: true };

/**
 * A request body, up to `limit` bytes. A body declared larger is not read at all, and one that passes
 * the limit while streaming is read no further: the caller answers 413 and closes the connection, so
 * neither memory nor CPU goes to a body that will be refused (reading 7 MiB and more only to discard
 * it kept a core busy for as long as the client kept sending).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"] ?? 0) > limit) {
      resolve({ tooLarge: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.pause();
        chunks.length = 0;
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    let ended = false;
    req.on("end", () => {
      ended = true;
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      resolve({ bytes });
    });
    req.on("error", reject);
    // "close" comes after every request, once its response is sent; only before "end" does it mean the
    // client went away mid-body. The error is built only then: an Error captures a stack trace, which
    // cost about 25 µs of CPU on every review when it was built unconditionally.
    req.on("close", () => {
      if (!ended) reject(new Error("the client closed the connection before the body ended"));
    });
  });
}
