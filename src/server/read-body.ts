import type { IncomingMessage } from "node:http";

export type Body = { text: string } | { tooLarge: true };

/**
 * A request body, up to `limit` bytes. A larger body is read to its end but not kept, so that the
 * client, still sending, receives the 413 instead of a reset connection; memory stays bounded.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    let tooLarge = declared > limit;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () =>
      resolve(tooLarge ? { tooLarge } : { text: Buffer.concat(chunks, size).toString("utf8") }),
    );
    req.on("error", reject);
    // Settles nothing after "end"; before it, the client went away mid-body.
    req.on("close", () => reject(new Error("the client closed the connection before the body ended")));
  });
}
