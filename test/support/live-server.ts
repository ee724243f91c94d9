import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResourceKind } from "../../src/admission/resource-kind.js";
import { inThreadReviewer, type Reviewer } from "../../src/admission/review-protocol.js";
import type { RuleActions } from "../../src/admission/rule-actions.js";
import { silentLogger } from "../../src/base/log.js";
import {
  type ClusterLookups,
  defaultPool,
  type PoolSettings,
  startReviewWorkers,
} from "../../src/cli/serve-reviews.js";
import type { AddonOperatorFlags } from "../../src/resources/addon-operator-configmap/index.js";
import { ensureCertDir, serviceDnsNames } from "../../src/server/certificates.js";
import { type RunningServer, type ServeOptions, startHttpsServer } from "../../src/server/https-server.js";
import { MemoryBudget } from "../../src/server/memory-budget.js";

export interface LiveServer {
  running: RunningServer;
  /** The memory budget, when `memoryBudgetMb` was given. */
  budget?: MemoryBudget;
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
export type LiveServerOptions = Partial<Omit<ServeOptions, "port" | "host" | "reviewer">> & {
  /** `serve --rule-action`. */
  ruleActions?: RuleActions;
  /** The review workers (size 1 unless given; serve's heap and deadline; no standby unless asked). */
  pool?: Partial<PoolSettings> & { standby?: boolean };
  /** The cluster caches the workers get copies of (`prepareClusterFeatures`' lookups). */
  lookups?: ClusterLookups;
  addonOperator?: AddonOperatorFlags;
  /** `serve --memory-budget`, in MiB (with serve's review workers): unbounded unless given. */
  memoryBudgetMb?: number;
};

/**
 * Starts the real HTTPS server on a free port with freshly generated certificates (or those already
 * in `options.certDir`). Without `kinds`, reviews are judged as `serve` judges them: by the kinds
 * `serve` builds, in review worker threads. Kinds made by a test are judged in the test's thread.
 */
export async function startLiveServer(
  kinds?: ResourceKind[],
  options: LiveServerOptions = {},
): Promise<LiveServer> {
  const certDir = options.certDir ?? mkdtempSync(join(tmpdir(), "module-admission-test-"));
  await ensureCertDir(certDir, serviceDnsNames("module-admission", "module-admission"));
  const {
    ruleActions = new Map(),
    pool = {},
    lookups,
    addonOperator,
    memoryBudgetMb,
    ...serveOptions
  } = options;
  const { standby = false, ...poolSettings } = pool;
  const workers = kinds
    ? undefined
    : await startReviewWorkers({
        ruleActions,
        addonOperator,
        lookups,
        pool: { ...defaultPool, size: 1, ...poolSettings },
        standby,
        log: serveOptions.log ?? silentLogger,
      });
  const reviewer: Reviewer = workers ?? inThreadReviewer(kinds ?? [], { ruleActions });
  const budget =
    workers && memoryBudgetMb !== undefined
      ? new MemoryBudget(memoryBudgetMb * 1024 * 1024, () => workers.workersMemory())
      : undefined;
  const running = await startHttpsServer({
    log: silentLogger,
    ...serveOptions,
    port: 0,
    host: "127.0.0.1",
    certDir,
    reviewer,
    budget,
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
    budget,
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
