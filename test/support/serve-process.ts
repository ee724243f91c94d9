import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

const root = new URL("../../", import.meta.url).pathname;
const mainScript = `${root}src/cli/main.ts`;

/**
 * Builds the command as users run it (`npm run compile`: dist/), for measurements where tsx's own
 * memory (about 80 MiB) would hide the server's.
 */
export function buildCommand(): string {
  const build = spawnSync(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.json`],
    {
      encoding: "utf8",
    },
  );
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  // `npm run compile`'s second step: the CLI as it ships, bundled (scripts/bundle-cli.mjs).
  const bundle = spawnSync(process.execPath, [`${root}scripts/bundle-cli.mjs`], { encoding: "utf8" });
  if (bundle.status !== 0) throw new Error(`bundling failed:\n${bundle.stdout}${bundle.stderr}`);
  return `${root}dist/cli/main.js`;
}

/**
 * Starts `module-admission serve` in its own process (from the sources with tsx, or from `compiled`)
 * and waits for the log lines that give its ports.
 */
export async function startServe(
  args: string[],
  workers: number,
  compiled?: string,
  nodeOptions: string[] = [],
) {
  const command = [...nodeOptions, ...(compiled ? [compiled] : ["--import", "tsx", mainScript])];
  const child = spawn(process.execPath, [...command, "serve", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const logs: Record<string, unknown>[] = [];
  const waiters: { matches: (entry: Record<string, unknown>) => boolean; count: number; done: () => void }[] =
    [];
  /** Resolves once `count` log lines match: waiting on the process's own events, not on time. */
  const logged = (matches: (entry: Record<string, unknown>) => boolean, count = 1) =>
    new Promise<void>((done) => {
      const waiter = { matches, count: count - logs.filter(matches).length, done };
      if (waiter.count <= 0) done();
      else waiters.push(waiter);
    });
  const ports = await new Promise<{ port: number; metricsPort: number }>((resolve, reject) => {
    const found: { port?: number; metricsPort?: number } = {};
    createInterface({ input: child.stdout as NonNullable<ChildProcess["stdout"]> }).on("line", (line) => {
      const entry = JSON.parse(line);
      logs.push(entry);
      for (const waiter of waiters) if (waiter.matches(entry) && --waiter.count === 0) waiter.done();
      found.port ??= entry.port;
      found.metricsPort ??= entry.metricsPort;
      const serving = logs.filter((log) => log.port !== undefined).length;
      if (serving === workers && found.metricsPort) resolve(found as { port: number; metricsPort: number });
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before serving`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, logs, logged, exited, ...ports };
}
