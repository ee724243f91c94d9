import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:https";
import { createServer } from "node:net";

export interface BenchServer {
  name: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface Reply {
  status: number;
  json: unknown;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** One request on a fresh connection, verified against the bench CA. */
export function post(ca: string, port: number, path: string, body: string, method = "POST"): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        ca,
        servername: "localhost",
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function waitReady(ca: string, port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready`);
    const ready = await post(ca, port, "/readyz", "", "GET").then(
      (reply) => reply.status === 200,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("server did not become ready in 60 s");
}

/**
 * Starts node with `argv` (compiled JavaScript, as users run it: tsx would wrap every closure in a
 * naming helper and inflate the figures; $PORT is replaced by a free port) in its own process, with an
 * IPC channel and --expose-gc, and waits until GET /readyz answers 200.
 */
export async function startServer(name: string, ca: string, argv: string[]): Promise<BenchServer> {
  return startProcess(name, ca, process.execPath, ["--expose-gc", ...argv]);
}

/** Starts `command` with `args` ($PORT replaced by a free port) and waits until GET /readyz answers 200. */
export async function startProcess(
  name: string,
  ca: string,
  command: string,
  args: string[],
): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(
    command,
    args.map((arg) => arg.replace("$PORT", String(port))),
    { stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  // Logs go to a pipe, as in a pod, and are drained unread.
  child.stdout?.resume();
  await waitReady(ca, port, child);
  return {
    name,
    port,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The server's heap used after a forced GC and its RSS (bench/servers/memory-probe.ts answers). */
export function memoryOf(server: BenchServer): Promise<{ heapUsed: number | null; rss: number }> {
  return new Promise((resolve) => {
    server.child.once("message", (message) => resolve(message as { heapUsed: number | null; rss: number }));
    server.child.send("memory");
  });
}
