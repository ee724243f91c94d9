import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface Diagnostic {
  message: string;
  range: { start: { line: number } };
}

/**
 * The real yaml-language-server (the npm package behind VS Code's YAML extension), spoken to as an
 * editor does: JSON-RPC over stdio with Content-Length framing.
 */
export class YamlLanguageServer {
  private readonly child: ChildProcess;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, (result: unknown) => void>();
  private readonly diagnostics = new Map<string, (items: Diagnostic[]) => void>();
  private settings: Record<string, unknown> = {};

  constructor() {
    const require = createRequire(import.meta.url);
    const main = join(
      dirname(require.resolve("yaml-language-server/package.json")),
      "bin/yaml-language-server",
    );
    this.child = spawn(process.execPath, [main, "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
    this.child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
  }

  /** Starts the session with `yaml.schemas` associating the schema file with the glob. */
  async start(rootDir: string, schemas: Record<string, string[]>): Promise<void> {
    await this.request("initialize", {
      processId: process.pid,
      rootUri: `file://${rootDir}`,
      capabilities: { textDocument: { publishDiagnostics: {} } },
      workspaceFolders: [{ uri: `file://${rootDir}`, name: "repo" }],
    });
    this.notify("initialized", {});
    // The server answers a change by asking for the settings (workspace/configuration): given below.
    this.settings = { yaml: { validate: true, schemas, schemaStore: { enable: false } } };
    this.notify("workspace/didChangeConfiguration", { settings: this.settings });
  }

  /** Opens a document and waits for the diagnostics the server publishes for it. */
  diagnose(path: string, text: string): Promise<Diagnostic[]> {
    const uri = `file://${path}`;
    const published = new Promise<Diagnostic[]>((resolve) => this.diagnostics.set(uri, resolve));
    this.notify("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text } });
    return published;
  }

  async stop(): Promise<void> {
    await this.request("shutdown", null);
    this.notify("exit", null);
    this.child.kill();
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve) => this.pending.set(id, resolve));
    this.send({ jsonrpc: "2.0", id, method, params });
    return answered;
  }

  private notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), "utf8");
    this.child.stdin?.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin?.write(body);
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString("utf8"));
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.dispatch(message);
    }
  }

  private dispatch(message: { id?: number; method?: string; params?: unknown; result?: unknown }): void {
    if (message.method === "textDocument/publishDiagnostics") {
      const { uri, diagnostics } = message.params as { uri: string; diagnostics: Diagnostic[] };
      this.diagnostics.get(uri)?.(diagnostics);
      this.diagnostics.delete(uri);
    } else if (message.method === "workspace/configuration") {
      const { items } = message.params as { items: { section?: string }[] };
      const result = items.map((item) => (item.section ? (this.settings[item.section] ?? null) : null));
      this.send({ jsonrpc: "2.0", id: message.id, result });
    } else if (message.method !== undefined && message.id !== undefined) {
      // Another request from the server (capability registration): answered empty.
      this.send({ jsonrpc: "2.0", id: message.id, result: null });
    } else if (message.id !== undefined) {
      this.pending.get(message.id)?.(message.result);
      this.pending.delete(message.id);
    }
  }
}
