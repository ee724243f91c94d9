import { Agent, type RequestOptions, request } from "node:https";
import { KubeConfig } from "@kubernetes/client-node";
import { readJson, writeJson } from "../../src/base/exact-json.js";

/** One answer of the API server: its status, its Warning headers (decoded), its body (parsed). */
export interface ApiAnswer {
  status: number;
  warnings: string[];
  body: unknown;
}

export interface ApiClient {
  request(method: string, path: string, body?: unknown, query?: Record<string, string>): Promise<ApiAnswer>;
  close(): void;
}

/**
 * A small client of a test's API server, from its kubeconfig: JSON in and out, the warnings it sends
 * kept (client libraries drop them), connections kept alive and at most `parallel` requests at once.
 */
export function apiClient(kubeconfigPath: string, parallel = 8): ApiClient {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const server = new URL(config.getCurrentCluster()?.server ?? "");
  const agent = new Agent({ keepAlive: true, maxSockets: parallel });
  let running = 0;
  const waiting: (() => void)[] = [];
  const slot = async () => {
    if (running >= parallel) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
  };
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return {
    async request(method, path, body, query = {}) {
      // A dry run or a read is safe to send again when the server closed a kept-alive connection
      // under it (kube-apiserver closes one after a request it timed out).
      const retriable = method === "GET" || query.dryRun === "All";
      for (let attempt = 1; ; attempt++) {
        const started = Date.now();
        try {
          return await once(method, path, body, query);
        } catch (error) {
          // A connection closed after a long wait is the server timing the request out: no retry.
          if (Date.now() - started > 5000) attempt = 3;
          const code = (error as NodeJS.ErrnoException).code;
          const reset = code === "ECONNRESET" || code === "EPIPE";
          if (!retriable || !reset) throw error;
          // The server closed the connection on this very request each time: its answer.
          if (attempt >= 3)
            return { status: 0, warnings: [], body: `connection closed by the server (${code})` };
        }
      }
    },
    close: () => agent.destroy(),
  };

  async function once(
    method: string,
    path: string,
    body: unknown,
    query: Record<string, string>,
  ): Promise<ApiAnswer> {
    await slot();
    try {
      const options: RequestOptions = {
        method,
        host: server.hostname,
        port: server.port,
        path: `${path}${Object.keys(query).length > 0 ? `?${new URLSearchParams(query)}` : ""}`,
        headers: { "content-type": "application/json", accept: "application/json" },
        agent,
      };
      await config.applyToHTTPSOptions(options);
      options.agent = agent;
      return await new Promise<ApiAnswer>((resolve, reject) => {
        const call = request(options, (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: unknown = text;
            try {
              parsed = readJson(text);
            } catch {}
            resolve({
              status: response.statusCode ?? 0,
              warnings: warningTexts(response.headers.warning),
              body: parsed,
            });
          });
        });
        call.on("error", reject);
        call.end(body === undefined ? undefined : writeJson(body));
      });
    } finally {
      release();
    }
  }
}

/** The texts of `Warning: 299 - "text"` headers (RFC 7234: quoted strings, backslash escapes). */
export function warningTexts(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(", ") : header;
  const texts: string[] = [];
  const pattern = /299 - "((?:[^"\\]|\\.)*)"/g;
  for (let match = pattern.exec(joined); match; match = pattern.exec(joined)) {
    // Node reads header bytes as latin1; the API server writes UTF-8.
    const text = Buffer.from(match[1] ?? "", "latin1").toString("utf8");
    texts.push(text.replace(/\\(.)/g, "$1"));
  }
  return texts;
}
