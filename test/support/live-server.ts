import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import { resourceKinds } from "../../src/resources/index.js";
import { ensureCertDir, serviceDnsNames } from "../../src/server/certificates.js";
import { type RunningServer, type ServeOptions, startHttpsServer } from "../../src/server/https-server.js";
import { silentLogger } from "../../src/server/log.js";

export interface LiveServer {
  running: RunningServer;
  certDir: string;
  /** The generated CA: clients verify the server against it, as the API server does with caBundle. */
  ca: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply>;
  get(path: string): Promise<HttpReply>;
  close(): Promise<void>;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** Server options a test may set: anything but where it listens and which certificates it starts with. */
export type LiveServerOptions = Partial<Omit<ServeOptions, "port" | "host" | "kinds">>;

/**
 * Starts the real HTTPS server on a free port with freshly generated certificates (or those already
 * in `options.certDir`).
 */
export async function startLiveServer(
  kinds: ResourceKind[] = resourceKinds,
  options: LiveServerOptions = {},
): Promise<LiveServer> {
  const certDir = options.certDir ?? mkdtempSync(join(tmpdir(), "module-admission-test-"));
  await ensureCertDir(certDir, serviceDnsNames("module-admission", "module-admission"));
  const running = await startHttpsServer({
    log: silentLogger,
    ...options,
    port: 0,
    host: "127.0.0.1",
    certDir,
    kinds,
  });
  const ca = readFileSync(join(certDir, "ca.crt"), "utf8");
  const agent = new Agent({ ca, keepAlive: true, servername: "localhost" });
  const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    new Promise<HttpReply>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: running.port, method, path, agent, headers, servername: "localhost" },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return {
    running,
    certDir,
    ca,
    post: (path, body, headers = { "content-type": "application/json" }) =>
      send("POST", path, typeof body === "string" ? body : JSON.stringify(body), headers),
    get: (path) => send("GET", path),
    close: async () => {
      agent.destroy();
      await running.close();
    },
  };
}
