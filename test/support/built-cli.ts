import { spawnSync } from "node:child_process";
import type { Finding } from "../../src/base/finding.js";
import { buildCommand } from "./serve-process.js";

let built: string | undefined;

/** Runs the built command (`npm run compile`: dist/cli/main.js) as users run it; built once per test file. */
export function builtCli(args: string[], cwd?: string): { status: number; stdout: string; stderr: string } {
  built ??= buildCommand();
  const run = spawnSync(process.execPath, [built, ...args], { encoding: "utf8", ...(cwd ? { cwd } : {}) });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** The findings of a `-o json` run of the built command. */
export function builtFindings(run: { stdout: string }): Finding[] {
  return (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
}
