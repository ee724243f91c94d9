import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { readServingCertificate } from "../src/server/certificates.js";

/**
 * The ceiling: a bare node:https server with module-admission's TLS setup that answers every request
 * with one fixed allowed AdmissionReview. No webhook on this machine can be faster.
 * Usage: tsx bench/ceiling-server.ts CERT_DIR PORT
 */
const certDir = process.argv[2] ?? "certs";
const port = Number(process.argv[3] ?? 0);
const answer = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  response: { uid: "705ab4f5-6393-11e8-b7cc-42010a800003", allowed: true },
});
const server = createServer(
  { ...readServingCertificate(certDir), minVersion: "TLSv1.2", ALPNProtocols: ["http/1.1"] },
  (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  },
);
server.keepAliveTimeout = 90_000;
server.listen(port, () => {
  process.stdout.write(
    `${JSON.stringify({ msg: "listening", port: (server.address() as AddressInfo).port })}\n`,
  );
});
process.once("SIGTERM", () => process.exit(0));
