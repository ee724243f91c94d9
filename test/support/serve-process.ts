import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

const root = new URL("../../", import.meta.url).pathname;
const mainScript = `${root}src/cli/main.ts`;

let bundled: string | undefined;

/**
 * The command as users run it: bin/module-admission.js runs dist/cli/main.js, the CLI bundled by esbuild
 * (`npm run compile`'s second step, scripts/bundle-cli.mjs), for measurements where tsx's own memory
 * (about 80 MiB) would hide the server's. Bundled once per test process from the sources as they are
 * (about a second); the bundle writes each file only when it changed, through a rename, so test files
 * running in parallel never read half of one. tsc's emit of the whole project is not needed to run it
 * (the type check is `npm run lint`'s): it cost 10 s of CPU a file and rewrote dist/cli/main.js in place.
 */
export function buildCommand(): string {
  if (bundled) return bundled;
  const bundle = spawnSync(process.execPath, [`${root}scripts/bundle-cli.mjs`], { encoding: "utf8" });
  if (bundle.status !== 0) throw new Error(`bundling failed:\n${bundle.stdout}${bundle.stderr}`);
  bundled = `${root}dist/cli/main.js`;
  return bundled;
}

/**
 * `npm run compile` whole: tsc's emit of every module into dist/ and the bundle over its entry points,
 * for the benchmarks that import single modules from dist/ (not for test files: tsc rewrites
 * dist/cli/main.js in place, under a CLI another test file may be starting).
 */
export function compileProject(): string {
  const build = spawnSync(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.json`],
    {
      encoding: "utf8",
    },
  );
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  bundled = undefined;
  return buildCommand();
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
  // serve's defaults (8443, metrics 8080) are fixed ports: a test file beside another (npm test runs them
  // in parallel) or another clone's suite would find them taken. Every caller names both.
  for (const [flag, ...alternatives] of [["--port"], ["--metrics-port", "--metrics-bind-address"]] as const) {
    if (![flag, ...alternatives].some((name) => args.includes(name)))
      throw new Error(`startServe: pass ${flag} (0: a free port), not serve's fixed default`);
  }
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
