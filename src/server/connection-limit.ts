import type { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * At most `max` open connections, none of them silent for long, and room for a new one always. A
 * connection that has sent no byte of a request `silentMs` after it is ready (its TLS handshake done,
 * for HTTPS; the handshake itself is bounded by the server's handshakeTimeout) is closed. At the cap,
 * a new connection takes the place of the oldest one that has not yet sent a whole request's headers,
 * else of the keep-alive connection idle the longest (Go's and nginx's servers close idle connections
 * when they need room), and only when every connection is busy with a request is it refused: neither
 * connections trickling their headers nor idle keep-alive ones (512 of them locked every new
 * connection out, the kubelet's probes included) can keep a new connection out.
 */
export function limitConnections(
  server: EventEmitter,
  { max, silentMs, secure }: { max: number; silentMs: number; secure: boolean },
): void {
  const open = new Set<Socket>();
  // Ready connections without a request yet, oldest first.
  const unproven = new Set<Socket>();
  // Keep-alive connections between requests, the longest idle first.
  const idle = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    if (open.size >= max) {
      const victim = unproven.values().next().value ?? idle.values().next().value;
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      unproven.delete(victim);
      idle.delete(victim);
      victim.destroy();
    }
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      unproven.delete(socket);
      idle.delete(socket);
    });
    if (!secure) watchSilence(socket);
  });
  const watchSilence = (socket: Socket) => {
    unproven.add(socket);
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, silentMs).unref();
    socket.once("close", () => clearTimeout(timer));
  };
  if (secure) server.on("secureConnection", watchSilence);
  // Requests each connection has in progress (more than one when the client pipelines).
  const inProgress = new WeakMap<Socket, number>();
  const busy = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    unproven.delete(socket);
    idle.delete(socket);
    inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
    res.once("finish", () => {
      const left = (inProgress.get(socket) ?? 1) - 1;
      inProgress.set(socket, left);
      if (left === 0 && !socket.destroyed) idle.add(socket);
    });
  };
  server.on("request", busy);
  server.on("checkContinue", busy);
}
