import { Worker } from "node:worker_threads";

/** What a load run saw: requests answered, and those that got no answer (why). */
export interface LoadOutcome {
  answered: number;
  lost: string[];
}

/**
 * Clients on their own thread (their own event loop, as the API server is another process): `clients`
 * keep-alive connections, each sending POSTs one after another. Like a Service in front of the pod,
 * they stop once its readiness is withdrawn: a probe `probeMs` after the last one answered (as the
 * kubelet's probes never overlap), withdrawn after two failures (the chart's failureThreshold), then
 * `probeMs` more for the endpoints to catch up; `quiet` says when the last client has stopped.
 * Every request that gets no answer is lost: the API server retries no POST, refused or reset.
 */
export function keepAliveLoad(options: {
  port: number;
  ca: string;
  path: string;
  body: string;
  clients: number;
  probeMs: number;
  /** Where readiness is probed over plain HTTP (the metrics listener, as the chart's kubelet does); else the HTTPS port. */
  probePort?: number;
}): { started: Promise<void>; quiet: Promise<void>; stop(): Promise<LoadOutcome> } {
  const worker = new Worker(workerCode, { eval: true, workerData: options });
  const started = new Promise<void>((resolve) => worker.once("message", () => resolve()));
  const quiet = new Promise<void>((resolve) => {
    worker.on("message", (message: { outcome?: LoadOutcome }) => {
      if (message.outcome) resolve();
    });
  });
  const outcome = new Promise<LoadOutcome>((resolve, reject) => {
    worker.on("message", (message: { outcome?: LoadOutcome }) => {
      if (message.outcome) resolve(message.outcome);
    });
    worker.once("error", reject);
  });
  return {
    started,
    /** The clients send nothing more: readiness withdrawn and the endpoints caught up, or a request lost. */
    quiet,
    /** The outcome once the clients have stopped (readiness withdrawn, or a request lost). */
    stop: async () => {
      const result = await outcome;
      await worker.terminate();
      return result;
    },
  };
}

const workerCode = `
const { workerData, parentPort } = require("node:worker_threads");
const { Agent, request } = require("node:https");
const http = require("node:http");
const { port, ca, path, body, clients, probeMs, probePort } = workerData;
const agent = new Agent({ ca, keepAlive: true, maxSockets: clients });
const outcome = { answered: 0, lost: [] };
let routedAway = false;
let running = clients;
let first = true;
function send(method, path, body, via) {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent: via, servername: "localhost", ca,
      headers: { "content-type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", (error) => resolve(String(error)));
    req.end(body);
  });
}
let failures = 0;
let probe;
function probeHttp() {
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port: probePort, path: "/readyz", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", (error) => resolve(String(error)));
    req.end();
  });
}
function probeLater() {
  probe = setTimeout(async () => {
    const status = probePort ? await probeHttp() : await send("GET", "/readyz", undefined, false);
    if (status !== 200 && ++failures === 2) setTimeout(() => { routedAway = true; }, probeMs);
    else probeLater();
  }, probeMs);
}
probeLater();
async function client() {
  while (!routedAway) {
    const result = await send("POST", path, body, agent);
    if (first) { first = false; parentPort.postMessage("started"); }
    if (result === 200) outcome.answered++;
    else { outcome.lost.push(String(result)); break; }
  }
  if (--running === 0) {
    clearTimeout(probe);
    agent.destroy();
    parentPort.postMessage({ outcome });
  }
}
for (let i = 0; i < clients; i++) client();
`;
