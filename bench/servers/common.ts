import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { readServingCertificate } from "../../src/server/certificates.js";

/** The comparison servers take CERT_DIR and PORT as arguments, as `bench/run.ts` starts them. */
const certDir = process.argv[2] ?? "certs";
const port = Number(process.argv[3] ?? 0);

/** module-admission's TLS setup (src/server/https-server.ts): TLS 1.2 minimum, HTTP/1.1 only. */
export function benchTls() {
  return { ...readServingCertificate(certDir), minVersion: "TLSv1.2" as const, ALPNProtocols: ["http/1.1"] };
}

/** The answer every correct webhook gives at least: the request's uid, allowed. */
export function allowedAnswer(review: unknown): string {
  const uid = (review as { request?: { uid?: unknown } } | null)?.request?.uid;
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid, allowed: true },
  });
}

export function listen(server: Server): void {
  server.keepAliveTimeout = 90_000;
  server.listen(port, "127.0.0.1", () => {
    process.stdout.write(
      `${JSON.stringify({ msg: "listening", port: (server.address() as AddressInfo).port })}\n`,
    );
  });
  process.once("SIGTERM", () => process.exit(0));
}
