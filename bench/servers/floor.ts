import { createServer } from "node:https";
import { allowedAnswer, benchTls, listen } from "./common.js";

/**
 * The floor: the least any correct webhook does. node:https that reads the whole body, JSON.parses it
 * and answers with its uid. module-admission's figures are ratios to this one.
 * Usage: node .bench-build/bench/servers/floor.js CERT_DIR PORT (compiled by bench/run.ts)
 */
listen(
  createServer(benchTls(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let answer: string;
      try {
        answer = allowedAnswer(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        answer = "{}"; // the readiness probe's empty body
      }
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  }),
);
