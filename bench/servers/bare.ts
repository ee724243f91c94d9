import { createServer } from "node:https";
import { benchTls, listen } from "./common.js";

/**
 * Bare node:https with module-admission's TLS setup: drains the body unread and answers every request
 * with one fixed allowed AdmissionReview. What TLS and HTTP alone cost; no correct webhook is cheaper.
 * Usage: node .bench-build/bench/servers/bare.js CERT_DIR PORT (compiled by bench/run.ts)
 */
const answer = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  response: { uid: "705ab4f5-6393-11e8-b7cc-42010a800003", allowed: true },
});
listen(
  createServer(benchTls(), (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  }),
);
