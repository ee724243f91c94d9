import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dump } from "js-yaml";
import type { Finding } from "../../src/base/finding.js";
import { type CliIo, runValidate } from "../../src/cli/validate.js";

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `module-admission validate` in-process with captured output; `stdin` is what `-f -` reads. */
export async function validateCli(args: string[], stdin = ""): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    readStdin: () => stdin,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    interactive: false,
  };
  const status = await runValidate(args, io);
  return { status, stdout: out.join(""), stderr: err.join("") };
}

/** The findings of a `--output json` run. */
export function jsonFindings(run: CliRun): Finding[] {
  return (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
}

/** A fresh temporary folder holding the given files (YAML documents are dumped, strings written as is). */
export function manifestDir(files: Record<string, string | unknown[]>): string {
  const dir = mkdtempSync(join(tmpdir(), "module-admission-validate-"));
  for (const [name, content] of Object.entries(files)) {
    const text = typeof content === "string" ? content : content.map((doc) => dump(doc)).join("---\n");
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
