import { Agent, request } from "node:https";

export interface FixedRateRequest {
  path: string;
  body: string;
}

export interface FixedRateResult {
  sent: number;
  failed: number;
  /** Milliseconds from when each request was due to when its answer had fully arrived. */
  latenciesMs: number[];
}

/**
 * An open-loop load: requests leave on a fixed schedule (`rate` per second, cycling through `requests`)
 * whether or not earlier ones were answered, over at most `connections` keep-alive connections. Latency
 * is counted from when a request was due, so a server that falls behind shows it (no coordinated
 * omission), and the figure does not depend on how fast the load generator itself is.
 */
export async function fixedRate(options: {
  port: number;
  ca: string;
  rate: number;
  seconds: number;
  connections: number;
  requests: FixedRateRequest[];
}): Promise<FixedRateResult> {
  const agent = new Agent({ ca: options.ca, keepAlive: true, maxSockets: options.connections });
  const total = Math.round(options.rate * options.seconds);
  const latenciesMs: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let sent = 0; sent < total; ) {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - start) * options.rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent * 1000) / options.rate;
      const { path, body } = options.requests[sent % options.requests.length] as FixedRateRequest;
      inFlight.push(
        send(agent, options.port, path, body).then(
          (status) => {
            if (status === 200) latenciesMs.push(performance.now() - dueAt);
            else failed++;
          },
          () => {
            failed++;
          },
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { sent: total, failed, latenciesMs };
}

function send(agent: Agent, port: number, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        servername: "localhost",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
