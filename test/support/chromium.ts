import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A real headless Chromium, driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * JSON messages ended by a NUL byte on file descriptors 3 and 4), so no driver library is needed and it
 * runs on Node 20 (puppeteer-core and playwright-core ask for Node 22). The browser is
 * @sparticuz/chromium's, from the npm registry: it carries Chromium in its tarball and unpacks it on
 * first use (into the system's temporary directory), so nothing is downloaded beyond `npm ci`.
 */
export interface Browser {
  /** A new page (tab), its DevTools session attached. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export interface Page {
  /** Sends a DevTools command to the page's session; resolves with its result. */
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Calls `listener` with the parameters of every event of this name on the page's session. */
  on(event: string, listener: (params: Record<string, unknown>) => void): void;
  /** Evaluates an expression in the page (awaiting a promise) and returns its value, as JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** Navigates and resolves once the page's load event has fired. */
  goto(url: string): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
}

/**
 * The flags the brief for this project names: without them, Chromium reaches for the network (updates,
 * sync, safe browsing) on start.
 */
const quietFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--no-first-run",
  "--no-default-browser-check",
  "--no-zygote",
  "--mute-audio",
  "--hide-scrollbars",
  "--window-size=1400,1000",
];

export async function launchChromium(): Promise<Browser> {
  // Imported here: the package sets the library path for the libraries it unpacks beside the browser.
  const { default: chromium } = await import("@sparticuz/chromium");
  const executable = await unpackedOnce(() => chromium.executablePath());
  const profile = mkdtempSync(join(tmpdir(), "playground-chromium-"));
  const child = spawn(executable, [...quietFlags, `--user-data-dir=${profile}`, "--remote-debugging-pipe"], {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    env: process.env,
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-4000);
  });
  const connection = new Connection(child.stdio[3] as Writable, child.stdio[4] as Readable, () => stderr);
  child.on("exit", (code, signal) => connection.closed(`chromium exited (${code ?? signal}): ${stderr}`));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await connection.send("Browser.close").catch(() => child.kill("SIGKILL"));
      await exited;
    }
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    await connection.send("Browser.getVersion");
  } catch (error) {
    await close();
    throw error;
  }
  return {
    newPage: () => newPage(connection),
    close,
  };
}

/**
 * @sparticuz/chromium unpacks the browser, its fonts and SwiftShader into the temporary directory on first
 * use and takes a file that exists there as unpacked, with no lock: a test process starting beside one
 * still unpacking would start half a binary. Here one process unpacks under a lock (a folder) and marks
 * the unpacking done; the others wait for the mark. Files there without the mark (a process killed while
 * unpacking, or an unpacking from before this lock) are unpacked again.
 */
async function unpackedOnce(executablePath: () => Promise<string>): Promise<string> {
  const done = join(tmpdir(), "chromium.unpacked");
  const lock = join(tmpdir(), "chromium.unpacking");
  const unpacked = () => existsSync(done) && existsSync(join(tmpdir(), "chromium"));
  while (!unpacked()) {
    if (tryLock(lock)) {
      try {
        if (unpacked()) break;
        for (const partial of ["chromium.unpacked", "chromium", "fonts", "libGLESv2.so"])
          rmSync(join(tmpdir(), partial), { recursive: true, force: true });
        const executable = await executablePath();
        writeFileSync(done, `${executable}\n`);
        return executable;
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    await sleep(200);
  }
  return executablePath();
}

/** Takes the lock folder; one left by a process killed while unpacking (over 10 minutes old) is taken over. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs < 600_000) return false;
    } catch {
      return false;
    }
    rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

async function newPage(connection: Connection): Promise<Page> {
  const { targetId } = await connection.send<{ targetId: string }>("Target.createTarget", {
    url: "about:blank",
  });
  const { sessionId } = await connection.send<{ sessionId: string }>("Target.attachToTarget", {
    targetId,
    flatten: true,
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    connection.send<T>(method, params, sessionId);
  const on = (event: string, listener: (params: Record<string, unknown>) => void) =>
    connection.listen(sessionId, event, listener);
  await send("Page.enable");
  await send("Runtime.enable");
  return {
    send,
    on,
    async evaluate<T>(expression: string): Promise<T> {
      const reply = await send<{
        result: { value?: unknown };
        exceptionDetails?: { text: string; exception?: { description?: string } };
      }>("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
      if (reply.exceptionDetails) {
        const { text, exception } = reply.exceptionDetails;
        throw new Error(`in the page: ${exception?.description ?? text}`);
      }
      return reply.result.value as T;
    },
    async goto(url: string): Promise<void> {
      const loaded = new Promise<void>((resolve) =>
        connection.once(sessionId, "Page.loadEventFired", () => resolve()),
      );
      const { errorText } = await send<{ errorText?: string }>("Page.navigate", { url });
      if (errorText) throw new Error(`navigating to ${url}: ${errorText}`);
      await loaded;
    },
    async screenshot(): Promise<Buffer> {
      const { data } = await send<{ data: string }>("Page.captureScreenshot", { format: "png" });
      return Buffer.from(data, "base64");
    },
  };
}

type Listener = (params: Record<string, unknown>) => void;

/** The DevTools protocol over the pipe: numbered commands and their replies, and events by session. */
class Connection {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private readonly listeners = new Map<string, Listener[]>();
  private buffered = "";
  private ended: string | undefined;

  constructor(
    private readonly input: Writable,
    output: Readable,
    private readonly log: () => string,
  ) {
    output.setEncoding("utf8");
    output.on("data", (text: string) => this.receive(text));
  }

  send<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<T> {
    if (this.ended) return Promise.reject(new Error(this.ended));
    const id = this.nextId++;
    const reply = new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
    this.input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    return reply;
  }

  listen(sessionId: string, event: string, listener: Listener): void {
    const key = `${sessionId} ${event}`;
    this.listeners.set(key, [...(this.listeners.get(key) ?? []), listener]);
  }

  once(sessionId: string, event: string, listener: Listener): void {
    const key = `${sessionId} ${event}`;
    const wrapped: Listener = (params) => {
      this.listeners.set(
        key,
        (this.listeners.get(key) ?? []).filter((l) => l !== wrapped),
      );
      listener(params);
    };
    this.listen(sessionId, event, wrapped);
  }

  closed(reason: string): void {
    this.ended = reason;
    for (const { reject } of this.waiting.values()) reject(new Error(reason));
    this.waiting.clear();
  }

  private receive(text: string): void {
    this.buffered += text;
    let end = this.buffered.indexOf("\0");
    while (end >= 0) {
      const message = JSON.parse(this.buffered.slice(0, end)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
      };
      this.buffered = this.buffered.slice(end + 1);
      end = this.buffered.indexOf("\0");
      if (message.id !== undefined) {
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${message.error.message} (${this.log().slice(-300)})`));
        else waiter?.resolve(message.result);
      } else if (message.method) {
        for (const listener of this.listeners.get(`${message.sessionId ?? ""} ${message.method}`) ?? [])
          listener(message.params ?? {});
      }
    }
  }
}
