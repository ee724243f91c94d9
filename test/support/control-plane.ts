import { type ChildProcess, execFile, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { generate } from "selfsigned";
import { controlPlaneTool, goBinary } from "./go-tools.js";
import { writeKubeconfig } from "./kubeconfig-file.js";

/**
 * A real Kubernetes control plane for a test file: etcd and kube-apiserver built from the Go modules of
 * test/control-plane, started the way controller-runtime's envtest starts them (certificates made at
 * start, RBAC with an admin client certificate in system:masters, service-account signing keys, etcd
 * without fsync), each on free ports of 127.0.0.1 in a temporary folder. The test gets a kubeconfig
 * and kubectl of the server's own version. Everything is stopped after the file, and also when the test
 * process ends any other way (guardChild).
 */
export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The --emulated-version it was started with, if any. */
  emulatedVersion: string | undefined;
  /** A kubeconfig file with the admin client certificate (system:masters). */
  kubeconfigPath: string;
  /** PEM of the CA that signed the API server's serving certificate and the admin client certificate. */
  caCert: string;
  /** The temporary folder holding the certificates, etcd's data and the servers' logs. */
  dir: string;
  kubeConfig(): KubeConfig;
  /**
   * A kubeconfig for another user (a client certificate the API server's CA signed): what RBAC lets
   * that user do is what the test grants, e.g. a ServiceAccount's name and groups.
   */
  kubeconfigFor(user: string, groups?: string[]): Promise<string>;
  /** A GET as the admin (for what kubectl does not show: aggregated discovery, /readyz). */
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: string }>;
  /** A request as the admin with a JSON body: the server's own answer, not kubectl's rendering of it. */
  send(method: string, path: string, body: unknown): Promise<{ status: number; body: string }>;
  /** Runs the built kubectl (client version = server version) against this API server. */
  kubectl(args: string[], options?: KubectlOptions): Promise<CommandResult>;
  /**
   * Something to undo before the servers stop (a `serve` calling it, webhooks registered): run last
   * first by `stop`, so a test's own processes end while the API server is still there.
   */
  defer(cleanup: () => unknown): void;
  /** The requests the server has answered so far (only with `auditLog`). */
  requests(): AuditedRequest[];
  /** Runs the deferred cleanups, then stops kube-apiserver and etcd and removes the folder. */
  stop(): Promise<void>;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** The working folder (file names in kubectl's messages are relative to it). */
  cwd?: string;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ControlPlaneOptions {
  /** kube-apiserver's --emulated-version (e.g. "1.34"): the oldest Kubernetes the chart supports. */
  emulatedVersion?: string;
  /** More kube-apiserver flags. */
  apiServerFlags?: string[];
  /**
   * Keep the API server's audit log (every request, level Metadata): `requests()` reads it, so a test
   * can see what a client asked of a real server (pages of a list, watches), not only what it got.
   */
  auditLog?: boolean;
}

/** One request as the API server's audit log records it (stage ResponseComplete). */
export interface AuditedRequest {
  verb: string;
  requestURI: string;
  user: string;
  code: number | undefined;
}

/** The built kubectl (the control plane's version): also `kubectl kustomize` for the GitOps examples. */
export function kubectlBinary(): string {
  return goBinary(controlPlaneTool, "kubectl");
}

// `go build go.etcd.io/etcd/server/v3` names the binary after the element before the major version.
const etcdBinary = () => goBinary(controlPlaneTool, "server");
const apiServerBinary = () => goBinary(controlPlaneTool, "kube-apiserver");

/** Processes still running, killed when the test process exits (a failed test, an uncaught error). */
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Makes sure a child process (a server a test started) does not outlive the test process: killed when
 * this process exits, and by a watchdog when it dies any other way (SIGKILL, a test runner's timeout).
 * The watchdog is a shell waiting for end-of-file on a pipe from this process: the pipe closes however
 * this process ends.
 */
export function guardChild(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  running.add(child);
  const watchdog = spawn(
    "sh",
    ["-c", 'cat >/dev/null; kill -9 "$1" 2>/dev/null', "watchdog", String(child.pid)],
    {
      stdio: ["pipe", "ignore", "ignore"],
    },
  );
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void }).unref();
  child.once("exit", () => {
    running.delete(child);
    watchdog.kill("SIGKILL");
  });
}

/**
 * A control plane for the enclosing `describe` (one per test file): started before its tests, stopped
 * after them. Call it inside a describe that is skipped with `withoutGo`, so nothing starts without Go.
 */
export function useControlPlane(options: ControlPlaneOptions = {}): () => ControlPlane {
  let plane: ControlPlane | undefined;
  before(async () => {
    plane = await startControlPlane(options);
  });
  after(async () => {
    await plane?.stop();
  });
  return () => {
    if (!plane) throw new Error("the control plane is not started (used outside its describe?)");
    return plane;
  };
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), "control-plane-"));
  const certs = await writeCertificates(dir);
  // A port picked free may be taken by another test file before our server binds it: try again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnFreePorts(dir, certs, options);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

class PortTaken extends Error {}

interface Certificates {
  caCert: string;
  caKey: string;
  clientCert: string;
  clientKey: string;
  files: Record<"ca" | "servingCert" | "servingKey" | "serviceAccountKey" | "serviceAccountPub", string>;
}

async function writeCertificates(dir: string): Promise<Certificates> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 86_400_000);
  const common = { keyType: "ec" as const, algorithm: "sha256" as const, notBeforeDate, notAfterDate };
  const ca = await generate([{ name: "commonName", value: "control-plane-ca" }], {
    ...common,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const signedBy = { key: ca.private, cert: ca.cert };
  const serving = await generate([{ name: "commonName", value: "kube-apiserver" }], {
    ...common,
    ca: signedBy,
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 2, value: "kubernetes.default.svc" },
          { type: 7, ip: "127.0.0.1" },
        ],
      },
    ],
  });
  // The admin user of envtest: a client certificate in the group system:masters, which RBAC lets do anything.
  const client = await clientCertificate({ caCert: ca.cert, caKey: ca.private }, "admin", ["system:masters"]);
  const serviceAccount = generateKeyPairSync("ec", {
    namedCurve: "prime256v1",
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const certDir = join(dir, "pki");
  mkdirSync(certDir);
  const files = {
    ca: join(certDir, "ca.crt"),
    servingCert: join(certDir, "apiserver.crt"),
    servingKey: join(certDir, "apiserver.key"),
    serviceAccountKey: join(certDir, "sa.key"),
    serviceAccountPub: join(certDir, "sa.pub"),
  };
  writeFileSync(files.ca, ca.cert);
  writeFileSync(files.servingCert, serving.cert);
  writeFileSync(files.servingKey, serving.private, { mode: 0o600 });
  writeFileSync(files.serviceAccountKey, serviceAccount.privateKey, { mode: 0o600 });
  writeFileSync(files.serviceAccountPub, serviceAccount.publicKey);
  return { caCert: ca.cert, caKey: ca.private, clientCert: client.cert, clientKey: client.private, files };
}

/** A client certificate for `user` in `groups` (the API server reads CN as the user, O as the groups). */
function clientCertificate(ca: { caCert: string; caKey: string }, user: string, groups: string[]) {
  const notBeforeDate = new Date(Date.now() - 60_000);
  return generate(
    [
      { name: "commonName", value: user },
      ...groups.map((group) => ({ name: "organizationName", value: group })),
    ],
    {
      keyType: "ec",
      algorithm: "sha256",
      notBeforeDate,
      notAfterDate: new Date(notBeforeDate.getTime() + 86_400_000),
      ca: { key: ca.caKey, cert: ca.caCert },
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", clientAuth: true },
      ],
    },
  );
}

async function startOnFreePorts(
  dir: string,
  certs: Certificates,
  options: ControlPlaneOptions,
): Promise<ControlPlane> {
  const [etcdClientPort, etcdPeerPort, apiPort] = await freePorts(3);
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
  const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
  const dataDir = join(dir, "etcd");
  rmSync(dataDir, { recursive: true, force: true });
  const etcd = startProcess(dir, "etcd", etcdBinary(), [
    `--data-dir=${dataDir}`,
    "--name=default",
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=default=${peerUrl}`,
    "--unsafe-no-fsync",
    "--log-level=warn",
  ]);
  const url = `https://127.0.0.1:${apiPort}`;
  const apiServer = startProcess(dir, "kube-apiserver", apiServerBinary(), [
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${apiPort}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    // No kubernetes Service endpoints to keep (the real one refuses a loopback address for them).
    "--endpoint-reconciler-type=none",
    `--cert-dir=${join(dir, "pki")}`,
    `--tls-cert-file=${certs.files.servingCert}`,
    `--tls-private-key-file=${certs.files.servingKey}`,
    `--client-ca-file=${certs.files.ca}`,
    "--authorization-mode=RBAC",
    `--service-account-issuer=${url}`,
    `--service-account-key-file=${certs.files.serviceAccountPub}`,
    `--service-account-signing-key-file=${certs.files.serviceAccountKey}`,
    "--service-cluster-ip-range=10.0.0.0/24",
    // No controller manager creates ServiceAccount tokens here (envtest does the same).
    "--disable-admission-plugins=ServiceAccount",
    "--allow-privileged=true",
    "--profiling=false",
    ...(options.emulatedVersion ? [`--emulated-version=${options.emulatedVersion}`] : []),
    ...(options.auditLog ? auditFlags(dir) : []),
    ...(options.apiServerFlags ?? []),
  ]);
  const stop = async () => {
    await apiServer.stop();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, certs, [etcd, apiServer]);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const kubeconfigPath = writeKubeconfig({
    url,
    caCert: certs.caCert,
    clientCert: certs.clientCert,
    clientKey: certs.clientKey,
  });
  const home = join(dir, "home");
  mkdirSync(home);
  const deferred: (() => unknown)[] = [];
  return {
    url,
    emulatedVersion: options.emulatedVersion,
    kubeconfigPath,
    caCert: certs.caCert,
    dir,
    kubeConfig: () => {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      return config;
    },
    get: (path, headers = {}) => adminRequest(url, certs, path, headers),
    send: (method, path, body) =>
      adminRequest(url, certs, path, { "content-type": "application/json" }, method, JSON.stringify(body)),
    requests: () => (options.auditLog ? auditedRequests(dir) : []),
    kubeconfigFor: async (user, groups = []) => {
      const client = await clientCertificate(certs, user, groups);
      return writeKubeconfig({
        url,
        caCert: certs.caCert,
        clientCert: client.cert,
        clientKey: client.private,
      });
    },
    kubectl: (args, kubectlOptions = {}) =>
      runKubectl(["--kubeconfig", kubeconfigPath, "--cache-dir", join(home, "cache"), ...args], {
        ...kubectlOptions,
        home,
      }),
    defer: (cleanup) => {
      deferred.push(cleanup);
    },
    stop: async () => {
      const failures: unknown[] = [];
      for (const cleanup of deferred.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          failures.push(error);
        }
      }
      await stop();
      rmSync(kubeconfigPath, { force: true });
      if (failures.length > 0) throw failures[0];
    },
  };
}

/** kubectl with a throwaway HOME: no user's kubeconfig, cache or plugins leak in. */
export function runKubectl(args: string[], options: KubectlOptions & { home?: string } = {}) {
  const home = options.home ?? mkdtempSync(join(tmpdir(), "kubectl-home-"));
  return new Promise<CommandResult>((resolve) => {
    const child = execFile(
      kubectlBinary(),
      args,
      {
        env: { PATH: process.env.PATH ?? "", HOME: home },
        maxBuffer: 64 * 1024 * 1024,
        ...(options.cwd ? { cwd: options.cwd } : {}),
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: error && !stderr ? String(error) : stderr });
      },
    );
    child.stdin?.end(options.input ?? "");
  });
}

interface Started {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

function startProcess(dir: string, name: string, binary: string, args: string[]): Started {
  const logFile = join(dir, `${name}.log`);
  const log = openSync(logFile, "w");
  const child = spawn(binary, args, {
    cwd: dir,
    // Webhook calls to 127.0.0.1 must never go through a proxy of the environment.
    env: { PATH: process.env.PATH ?? "", HOME: dir, NO_PROXY: "*", no_proxy: "*" },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  guardChild(child);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : null)));
    child.once("error", () => resolve(-1));
  });
  return {
    name,
    child,
    logFile,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killed = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killed);
    },
  };
}

function auditFlags(dir: string): string[] {
  const policy = join(dir, "audit-policy.yaml");
  writeFileSync(
    policy,
    JSON.stringify({
      apiVersion: "audit.k8s.io/v1",
      kind: "Policy",
      omitStages: ["RequestReceived"],
      rules: [{ level: "Metadata" }],
    }),
  );
  // blocking: an event is written before the response is sent, so a test reads it right after.
  return [
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${join(dir, "audit.log")}`,
    "--audit-log-mode=blocking",
    "--audit-log-format=json",
  ];
}

function auditedRequests(dir: string): AuditedRequest[] {
  let text = "";
  try {
    text = readFileSync(join(dir, "audit.log"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((event) => event.stage === "ResponseComplete")
    .map((event) => ({
      verb: event.verb,
      requestURI: event.requestURI,
      user: event.user?.username,
      code: event.responseStatus?.code,
    }));
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Asks /readyz until it answers 200, failing as soon as a server exits (with its log's end). */
async function waitReady(url: string, certs: Certificates, processes: Started[]): Promise<void> {
  const deadline = Date.now() + 180_000;
  let exited: Started | undefined;
  for (const started of processes) {
    started.exited.then(() => {
      exited ??= started;
    });
  }
  let last = "";
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    if (exited) {
      const log = tail(exited.logFile);
      if (/address already in use/.test(log)) throw new PortTaken(`${exited.name}: ${log}`);
      throw new Error(`${exited.name} exited before the API server was ready:\n${log}`);
    }
    const answer = await adminRequest(url, certs, "/readyz?verbose");
    if (answer.status === 200) return;
    last = `${answer.status} ${answer.body}`.trim();
    if (Date.now() > deadline) {
      throw new Error(
        `the API server was not ready after 180 s (last /readyz: ${last.slice(0, 2000)}):\n${processes.map((started) => tail(started.logFile)).join("\n")}`,
      );
    }
    await sleep(wait);
  }
}

function adminRequest(
  url: string,
  certs: Certificates,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      `${url}${path}`,
      {
        ca: certs.caCert,
        cert: certs.clientCert,
        key: certs.clientKey,
        servername: "localhost",
        headers,
        method,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ status: 0, body: error.message }));
    req.end(body);
  });
}

/** Ports free on 127.0.0.1 now (each held until all are picked, so they differ). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  return ports;
}
