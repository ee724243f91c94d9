import { createServer } from "node:https";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { allowedAnswer, benchTls, listen } from "./common.js";

/**
 * The floor with isolation: the least a webhook does that judges each review off its event loop, as
 * module-admission must (a review may not hold up another). The main thread reads the body and hands
 * its bytes (transferred) to one of two worker threads, which JSON.parses it and hands back the
 * answer's bytes; the main thread writes them. No rule, no deadline, no heap limit: only the crossing.
 * Module-admission's figures over this one's show what its rules and protocol cost beyond crossing.
 * Usage: node .bench-build/bench/servers/worker-floor.js CERT_DIR PORT (compiled by bench/run.ts)
 */
if (isMainThread) serve();
else answerInWorker();

function serve(): void {
  const workers = [0, 1].map(() => new Worker(new URL(import.meta.url), { argv: process.argv.slice(2) }));
  const waiting = new Map<number, (answer: ArrayBuffer) => void>();
  for (const worker of workers)
    worker.on("message", ({ id, answer }: { id: number; answer: ArrayBuffer }) => {
      waiting.get(id)?.(answer);
      waiting.delete(id);
    });
  let next = 0;
  listen(
    createServer(benchTls(), (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const id = next++;
        const body = Uint8Array.from(Buffer.concat(chunks)).buffer;
        waiting.set(id, (answer) => {
          res.writeHead(200, { "content-type": "application/json", "content-length": answer.byteLength });
          res.end(new Uint8Array(answer));
        });
        (workers[id % workers.length] as Worker).postMessage({ id, body }, [body]);
      });
    }),
  );
}

function answerInWorker(): void {
  parentPort?.on("message", ({ id, body }: { id: number; body: ArrayBuffer }) => {
    let answer: string;
    try {
      answer = allowedAnswer(JSON.parse(Buffer.from(body).toString("utf8")));
    } catch {
      answer = "{}"; // the readiness probe's empty body
    }
    const bytes = Uint8Array.from(Buffer.from(answer)).buffer;
    parentPort?.postMessage({ id, answer: bytes }, [bytes]);
  });
}
