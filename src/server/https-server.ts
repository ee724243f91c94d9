import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { ResourceKind } from "../admission/resource-kind.js";
import { createApp } from "./app.js";
import { readServingCertificate } from "./certificates.js";
import type { Logger } from "./log.js";

export interface ServeOptions {
  port: number;
  host?: string;
  certDir: string;
  kinds: ResourceKind[];
  log: Logger;
  /** readyz answers 503 until this says ready (e.g. until an informer cache has synced). */
  isReady?: () => boolean;
}

export interface RunningServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * The webhook over HTTPS/1.1 with TLS 1.2 or newer (the API server speaks HTTP/1.1 to webhooks).
 * Timeouts follow controller-runtime's webhook server.
 */
export async function startHttpsServer(options: ServeOptions): Promise<RunningServer> {
  const app = createApp({ kinds: options.kinds, log: options.log, isReady: options.isReady });
  const server = createServer(
    { ...readServingCertificate(options.certDir), minVersion: "TLSv1.2", ALPNProtocols: ["http/1.1"] },
    app,
  );
  server.keepAliveTimeout = 90_000;
  server.headersTimeout = 32_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
