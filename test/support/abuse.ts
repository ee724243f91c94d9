import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { limits } from "../../src/base/limits.js";
import {
  chunked,
  cleanReview,
  firstAnswer,
  jsonType,
  openRaw,
  padded,
  type RawConnection,
  rawRequest,
  requestHead,
  sendEndlessBody,
  type Target,
  validatePath,
} from "./attacker.js";

/** A small seeded generator (mulberry32): a failing round is replayed from its seed. */
export function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** The process's peak resident memory so far (VmHWM), in MiB. */
export function peakRssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024);
}

/** A GET on a fresh plain-HTTP connection, as the kubelet probes: the status (0: no answer). */
export function probe(port: number, path = "/readyz"): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** A clean review on a fresh connection: whether it was answered 200 and admitted, and how long it took. */
export async function cleanReviewAnswered(target: Target): Promise<{ admitted: boolean; ms: number }> {
  const started = performance.now();
  const body = Buffer.from(cleanReview());
  const answer = await rawRequest(
    target,
    requestHead("POST", validatePath, { ...jsonType, "Content-Length": body.length }),
    body,
  ).catch(() => ({ status: 0, body: "" }));
  const admitted = answer.status === 200 && JSON.parse(answer.body).response.allowed === true;
  return { admitted, ms: performance.now() - started };
}

let flood: Buffer | undefined;
/** A review padded to 1 MB in one-byte chunks (6 MB on the wire), built once. */
const floodBody = () => {
  flood ??= chunked(padded(cleanReview(), 1_000_000), 1);
  return flood;
};

/** The attacks, each one request or connection's worth, chosen by the generator. */
const attacks = {
  /** A clean review padded to 1 MB in one-byte chunks. */
  chunkFlood: (target: Target) =>
    rawRequest(
      target,
      requestHead("POST", validatePath, { ...jsonType, "Transfer-Encoding": "chunked" }),
      floodBody(),
    ),
  /** A clean review in chunks of a random size. */
  chunkSizes: (target: Target, pick: (below: number) => number) =>
    rawRequest(
      target,
      requestHead("POST", validatePath, { ...jsonType, "Transfer-Encoding": "chunked" }),
      chunked(padded(cleanReview(), 1 + pick(200_000)), 1 + pick(4096)),
    ),
  /** A review of the largest size, padded. */
  largest: (target: Target) => {
    const body = padded(cleanReview(), limits.bodyBytes);
    return rawRequest(
      target,
      requestHead("POST", validatePath, { ...jsonType, "Content-Length": body.length }),
      body,
    );
  },
  /** A wrong method or path with an endless body. */
  wrongPlace: (target: Target, pick: (below: number) => number) => {
    const [method, path] = [
      ["GET", validatePath],
      ["PUT", validatePath],
      ["POST", "/nowhere"],
      ["GET", "/healthz"],
      ["DELETE", "/readyz"],
    ][pick(5)] as [string, string];
    return sendEndlessBody(
      target,
      requestHead(method, path, { ...jsonType, "Content-Length": 1e12 }),
      16 * 1024 * 1024,
    );
  },
  /** Pipelined clean reviews on one connection: the first answer is read. */
  pipelined: async (target: Target, pick: (below: number) => number) => {
    const connection = await openRaw(target);
    const body = Buffer.from(cleanReview());
    const one = Buffer.concat([
      Buffer.from(requestHead("POST", validatePath, { ...jsonType, "Content-Length": body.length })),
      body,
    ]);
    connection.socket.write(Buffer.concat(Array(2 + pick(30)).fill(one)));
    const answer = await firstAnswer(connection);
    connection.socket.destroy();
    return answer;
  },
};

export type AttackName = keyof typeof attacks | "partialBody" | "idleConnections";

export interface AbuseOutcome {
  /** Attacks sent, by class. */
  sent: Record<string, number>;
  /** Clean reviews sent beside them, and those answered 200 and admitted. */
  clean: number;
  admitted: number;
  /** Each clean review's time, ms (reported by the fuzz run, never asserted in tests). */
  cleanMs: number[];
  /** Probes on the metrics listener on fresh connections, and those answered 200. */
  probes: number;
  probesAnswered: number;
}

/**
 * One round of abuse against a running `serve`: `idle` keep-alive connections held open, `partial`
 * bodies left unfinished, then `largest` reviews of the largest size, `floods` chunk floods and
 * `concurrent` attacks of random classes at once, with a clean review and
 * a kubelet-style probe sent in the middle of them. Counts what was answered; the caller asserts.
 */
export async function abuseRound(
  target: Target,
  metricsPort: number,
  options: {
    seed: number;
    concurrent: number;
    idle: number;
    partial: number;
    largest: number;
    floods?: number;
  },
): Promise<AbuseOutcome> {
  const pick = random(options.seed);
  const outcome: AbuseOutcome = {
    sent: {},
    clean: 0,
    admitted: 0,
    cleanMs: [],
    probes: 0,
    probesAnswered: 0,
  };
  const count = (name: string) => {
    outcome.sent[name] = (outcome.sent[name] ?? 0) + 1;
  };
  const held: RawConnection[] = [];
  try {
    // Idle keep-alive connections, each after one answered request.
    for (let i = 0; i < options.idle; i++) {
      const connection = await openRaw(target).catch(() => undefined);
      if (!connection) continue;
      connection.socket.write(requestHead("GET", "/healthz", {}));
      held.push(connection);
      count("idleConnections");
    }
    // Slow, partial bodies: declared, begun, never finished.
    for (let i = 0; i < options.partial; i++) {
      const connection = await openRaw(target).catch(() => undefined);
      if (!connection) continue;
      connection.socket.write(
        requestHead("POST", validatePath, { ...jsonType, "Content-Length": 1 + pick(limits.bodyBytes) }),
      );
      connection.socket.write(Buffer.alloc(pick(64 * 1024), " "));
      held.push(connection);
      count("partialBody");
    }
    const names = Object.keys(attacks) as (keyof typeof attacks)[];
    const running: Promise<unknown>[] = [];
    for (let i = 0; i < options.largest; i++) {
      count("largest");
      running.push(attacks.largest(target).catch(() => undefined));
    }
    for (let i = 0; i < (options.floods ?? 0); i++) {
      count("chunkFlood");
      running.push(attacks.chunkFlood(target).catch(() => undefined));
    }
    for (let i = 0; i < options.concurrent; i++) {
      const name = names[pick(names.length)] as keyof typeof attacks;
      count(name);
      running.push(attacks[name](target, pick).catch(() => undefined));
    }
    // In the middle of it all: a probe on a fresh connection, and a clean review.
    outcome.probes++;
    if ((await probe(metricsPort)) === 200) outcome.probesAnswered++;
    outcome.clean++;
    const clean = await cleanReviewAnswered(target);
    if (clean.admitted) outcome.admitted++;
    outcome.cleanMs.push(clean.ms);
    await Promise.all(running);
  } finally {
    for (const connection of held) connection.socket.destroy();
  }
  return outcome;
}
