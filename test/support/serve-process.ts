import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

const mainScript = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** Starts `module-admission serve` in its own process and waits for the log lines that give its ports. */
export async function startServe(args: string[], workers: number) {
  const child = spawn(process.execPath, ["--import", "tsx", mainScript, "serve", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const logs: Record<string, unknown>[] = [];
  const ports = await new Promise<{ port: number; metricsPort: number }>((resolve, reject) => {
    const found: { port?: number; metricsPort?: number } = {};
    createInterface({ input: child.stdout as NonNullable<ChildProcess["stdout"]> }).on("line", (line) => {
      const entry = JSON.parse(line);
      logs.push(entry);
      found.port ??= entry.port;
      found.metricsPort ??= entry.metricsPort;
      const serving = logs.filter((log) => log.port !== undefined).length;
      if (serving === workers && found.metricsPort) resolve(found as { port: number; metricsPort: number });
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before serving`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, logs, exited, ...ports };
}
