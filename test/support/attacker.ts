import { connect, type TLSSocket } from "node:tls";
import { helmModule } from "./modules.js";
import { admissionReview } from "./reviews.js";

/** The Module validating webhook's path, and the header a review is sent with. */
export const validatePath = "/validate-batch-forkspacer-com-v1-module";
export const jsonType = { "Content-Type": "application/json" };

/** A clean Module review as the API server sends it, as JSON. */
export const cleanReview = () =>
  JSON.stringify(admissionReview({ operation: "CREATE", object: helmModule() }));

/** Where an attacker connects: the server's port, and the CA its certificate is checked against. */
export interface Target {
  port: number;
  ca: string | Buffer;
}

/** A raw TLS connection: what the server answered so far, and when it closed. */
export interface RawConnection {
  socket: TLSSocket;
  received(): string;
  closed: Promise<void>;
  /** Resolves once what was received matches (checked on each chunk as it comes). */
  until(pattern: RegExp): Promise<void>;
  /** True once the server (or anything) closed it. */
  isClosed(): boolean;
}

/** A TLS connection to the target, once its handshake is done. */
export function openRaw(target: Target): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: target.port, ca: target.ca, servername: "localhost" });
    let text = "";
    let closedYet = false;
    socket.on("data", (chunk: Buffer) => {
      // What a test looks at is the head of the answer: a few KiB at most are kept.
      if (text.length < 64 * 1024) text += chunk.toString("latin1");
    });
    // A reset while we still send is how a refused body ends; tests look at what was answered.
    socket.on("error", () => {});
    const closed = new Promise<void>((done) =>
      socket.once("close", () => {
        closedYet = true;
        done();
      }),
    );
    const until = (pattern: RegExp) =>
      new Promise<void>((done) => {
        const check = () => {
          if (!pattern.test(text) && !closedYet) return;
          socket.off("data", check).off("close", check);
          done();
        };
        socket.on("data", check);
        socket.once("close", check);
        check();
      });
    socket.once("secureConnect", () =>
      resolve({ socket, received: () => text, closed, until, isClosed: () => closedYet }),
    );
    socket.once("error", reject);
  });
}

/** A request's head: the method, path and headers as written on the wire. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ Host: "localhost", ...headers }).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * Writes `head`, then a body for as long as the connection takes it, up to `maxBytes`: how many bytes
 * of body the server let in before it closed the connection (all of them when it never did), and what
 * it answered. Counted in bytes, so a server that reads what it should not is caught by the count.
 */
export async function sendEndlessBody(
  target: Target,
  head: string,
  maxBytes: number,
): Promise<{ sent: number; answer: string; closed: boolean }> {
  const connection = await openRaw(target);
  connection.socket.write(head);
  const piece = Buffer.alloc(64 * 1024, " ");
  let sent = 0;
  while (!connection.isClosed() && sent < maxBytes) {
    if (!connection.socket.write(piece)) await drainedOrClosed(connection.socket);
    sent += piece.length;
  }
  const closed = connection.isClosed();
  connection.socket.destroy();
  return { sent, answer: connection.received(), closed };
}

/** Resolves once the socket can take more, or has closed; its listeners removed either way. */
function drainedOrClosed(socket: TLSSocket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off("drain", done).off("close", done);
      resolve();
    };
    socket.on("drain", done).on("close", done);
  });
}

/** `body` as a chunked body in chunks of `size` bytes (the last may be shorter), ended. */
export function chunked(body: Buffer, size: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const chunk = body.subarray(at, at + size);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}

/** A JSON body padded with blanks to `bytes` (JSON ignores them): a valid review of any size. */
export function padded(json: string, bytes: number): Buffer {
  const text = Buffer.from(json);
  return Buffer.concat([text, Buffer.alloc(Math.max(0, bytes - text.length), " ")]);
}

/** The first answer on a raw connection, once whole (its Content-Length read), or what came before it closed. */
export async function firstAnswer(connection: RawConnection): Promise<{ status: number; body: string }> {
  await connection.until(/^HTTP\/1\.1 \d+[\s\S]*?\r\n\r\n/);
  const whole = (text: string) => {
    const end = text.indexOf("\r\n\r\n");
    const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
    return end !== -1 && length !== undefined && text.length >= end + 4 + Number(length);
  };
  await new Promise<void>((done) => {
    const check = () => {
      if (!whole(connection.received()) && !connection.isClosed()) return;
      connection.socket.off("data", check).off("close", check);
      done();
    };
    connection.socket.on("data", check);
    connection.socket.once("close", check);
    check();
  });
  const text = connection.received();
  const end = text.indexOf("\r\n\r\n");
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), body: text.slice(end + 4) };
}

/** One request on a fresh connection: its answer (status 0: none came before the connection closed). */
export async function rawRequest(
  target: Target,
  head: string,
  body?: Buffer,
): Promise<{ status: number; body: string }> {
  const connection = await openRaw(target);
  connection.socket.write(head);
  if (body) connection.socket.write(body);
  const answer = await firstAnswer(connection);
  connection.socket.destroy();
  return answer;
}
