import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before } from "node:test";
import { writeJson } from "../../src/base/exact-json.js";
import { addonOracleTool, ensureBuilt, goBinary, oracleTool, withoutGo } from "./go-tools.js";

/**
 * The client of the Go oracles (test/oracles): long-running processes per test file, asked over
 * stdin/stdout, one JSON request a line and one answer a line, in order. Requests are pipelined: a
 * test may send thousands before the first answer arrives. The ops and their fields are the oracle's
 * (test/oracles/*.go); the types below name what the tests read.
 */

export interface TemplateAnswer {
  parseError?: string;
  templates?: string[];
  executed?: boolean;
  output?: string;
  execError?: string;
  jsonKind?: string;
}

export interface ModuleAnswer {
  /** The first failing step: crd, decode, webhook, adopt, render or install; undefined when none fails. */
  stage?: "crd" | "decode" | "webhook" | "adopt" | "render" | "install";
  error?: string;
  /** An adopted release's render failure: what forking its Workspace meets (nothing rendered at install). */
  forkError?: string;
  config?: Record<string, unknown>;
  rendered?: unknown;
}

export interface UrlAnswer {
  error?: string;
  scheme?: string;
  opaque?: string;
  host?: string;
  path?: string;
  string?: string;
  requestURIError?: string;
}

export interface CronAnswer {
  error?: string;
}

export interface JsonNumberAnswer {
  intError?: string;
  int?: string;
  floatError?: string;
  float?: string;
  truncated?: string;
}

export interface YamlAnswer {
  error?: string;
  value?: unknown;
  goType?: string;
}

export interface ConfigMapAnswer {
  error?: string;
  global?: unknown;
  modules?: Record<string, { values?: unknown; enabled?: boolean; maintenance?: string }>;
}

export interface AddonValuesAnswer {
  loadError?: string;
  effective?: unknown;
  celError?: string;
  errors?: string[];
  valid: boolean;
}

export interface CelAnswer {
  error?: string;
  failed?: string[];
}

interface Ops {
  template: [{ text: string; data?: unknown; funcs?: string[]; fill?: string }, TemplateAnswer];
  module: [{ module: unknown; fill?: string; operatorCrd?: string }, ModuleAnswer];
  url: [{ raw: string }, UrlAnswer];
  cron: [{ spec: string }, CronAnswer];
  jsonNumber: [{ text: string }, JsonNumberAnswer];
  yaml: [{ text: string; reader: "sigs" | "yaml.v3" | "kyaml" }, YamlAnswer];
  configMap: [{ data: Record<string, string> }, ConfigMapAnswer];
  addonValues: [
    { configSchema: string; key: string; values: unknown; oldValues?: unknown },
    AddonValuesAnswer,
  ];
  cel: [{ rules: unknown; self: unknown; oldSelf?: unknown }, CelAnswer];
}

export type Op = keyof Ops;
export type Request<O extends Op> = Ops[O][0];
/** An answer: the op's result, or how the op ended without one (a Go panic, the oracle's timeout). */
export type Answer<O extends Op> = Ops[O][1] | { panic: string } | { timeout: true };

export const isPanic = (answer: object): answer is { panic: string } => "panic" in answer;

/** One oracle process: requests written in order, answers matched by id. */
class OracleProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited: Error | undefined;
  private stderr = "";

  constructor(binary: string) {
    // Time zones from the database Go ships, not the machine's: the same answers on every machine.
    const zoneinfo = join(
      execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim(),
      "lib/time/zoneinfo.zip",
    );
    this.child = spawn(binary, [], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ZONEINFO: zoneinfo },
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr = `${this.stderr}${chunk}`.slice(-4000);
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => this.answer(line));
    this.child.on("exit", (code, signal) => {
      this.exited = new Error(`the Go oracle exited (${signal ?? code}): ${this.stderr}`);
      for (const { reject } of this.waiting.values()) reject(this.exited);
      this.waiting.clear();
    });
  }

  ask(op: string, fields: object): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    const line = `${writeJson({ id, op, ...fields })}\n`;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(line);
    });
  }

  close(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.stdin.end();
    });
  }

  private answer(line: string): void {
    const parsed = JSON.parse(line) as {
      id: number;
      result?: unknown;
      error?: string;
      panic?: string;
      timeout?: boolean;
    };
    const waiter = this.waiting.get(parsed.id);
    if (!waiter) return;
    this.waiting.delete(parsed.id);
    if (parsed.error !== undefined)
      waiter.reject(new Error(`the Go oracle refused the request: ${parsed.error}`));
    else if (parsed.panic !== undefined) waiter.resolve({ panic: parsed.panic });
    else if (parsed.timeout) waiter.resolve({ timeout: true });
    else waiter.resolve(parsed.result ?? {});
  }
}

/** The ops the addon-operator oracle answers (Go 1.26); the Forkspacer oracle (Go 1.24.9) the rest. */
const addonOps = new Set<Op>(["yaml", "configMap", "addonValues", "cel"]);

/**
 * The Go oracles as one: each op goes to the process built with the Go of the system it models. The
 * processes start on first use.
 */
export class GoOracle {
  private forkspacer: OracleProcess | undefined;
  private addon: OracleProcess | undefined;

  constructor(
    private readonly binaries = {
      forkspacer: goBinary(oracleTool, "oracles"),
      addon: goBinary(addonOracleTool, "addon-operator"),
    },
  ) {}

  /** One request; resolves with its answer, rejects when the request was malformed or the oracle died. */
  ask<O extends Op>(op: O, fields: Request<O>): Promise<Answer<O>> {
    return this.process(op).ask(op, fields) as Promise<Answer<O>>;
  }

  /** Many requests of one op, pipelined; answers in the same order. */
  askAll<O extends Op>(op: O, requests: readonly Request<O>[]): Promise<Answer<O>[]> {
    return Promise.all(requests.map((fields) => this.ask(op, fields)));
  }

  async close(): Promise<void> {
    await Promise.all([this.forkspacer?.close(), this.addon?.close()]);
  }

  private process(op: Op): OracleProcess {
    if (addonOps.has(op)) {
      this.addon ??= new OracleProcess(this.binaries.addon);
      return this.addon;
    }
    this.forkspacer ??= new OracleProcess(this.binaries.forkspacer);
    return this.forkspacer;
  }
}

/**
 * The test file's oracle: started before its tests (once, built first if need be), closed after them. Call at the top of a
 * file or in a describe, and read `.current` inside tests. Without Go nothing starts; the tests skip
 * with `withoutGo`'s one line.
 */
export function useGoOracle(): { readonly current: GoOracle } {
  let oracle: GoOracle | undefined;
  if (!withoutGo) {
    before(async () => {
      // Built already under npm test (build-go-tools.ts); a test file run alone builds them here.
      const log = (line: string) => console.error(`go-tools: ${line}`);
      const forkspacer = await ensureBuilt(oracleTool, log);
      const addon = await ensureBuilt(addonOracleTool, log);
      oracle = new GoOracle({
        forkspacer: join(forkspacer, "oracles"),
        addon: join(addon, "addon-operator"),
      });
    });
    after(() => oracle?.close());
  }
  return {
    get current(): GoOracle {
      if (!oracle) throw new Error("the Go oracle is not running (no Go, or used outside a test)");
      return oracle;
    },
  };
}

export { withoutGo };
